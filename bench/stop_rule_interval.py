"""The stop rule's interval of a ratio of two cells (src/lab/stats/sequential.cpp), in Python.

A cell's figures are grouped by process; on the log scale each cell is split into the variance
between process means and within them, the between part moderated toward the pool of its
group's other cells (leave-one-out), and the log ratio of the two cells' levels gets a Student-t
interval with Welch-Satterthwaite degrees of freedom. Standard library only; the t quantile comes
from the regularised incomplete beta function.

| function | lab counterpart |
|---|---|
| spread_of(processes) | spread_of |
| pool_between(spreads) | pool_between |
| compare_levels(base, base_pool, candidate, candidate_pool, confidence) | compare_levels |
| t_quantile(confidence, df) | t_quantile (boost's students_t) |
"""
import math
import statistics

PRIOR_DF = 4.0  # stop_rule::prior_df


class Spread:
    """A cell's log figures: level, process variance, within part, between part."""

    def __init__(self, processes):
        logs = [[math.log(v) for v in p] for p in processes if p]
        self.processes = len(logs)
        means = [statistics.fmean(p) for p in logs]
        self.level = statistics.fmean(means) if means else 0.0
        within_df = sum(len(p) - 1 for p in logs)
        squares = sum((v - m) ** 2 for p, m in zip(logs, means) for v in p)
        within = squares / within_df if within_df > 0 else 0.0
        inverse_sizes = sum(1 / len(p) for p in logs)
        self.within_part = within * inverse_sizes / self.processes if logs else 0.0
        self.process_variance = statistics.variance(means) if len(means) > 1 else 0.0
        self.between = max(0.0, self.process_variance - self.within_part) if len(means) > 1 else 0


def spread_of(processes):
    """None when a figure is not positive (the lab's invalid spread)."""
    if any(not v > 0 for p in processes for v in p):
        return None
    return Spread(processes)


def pool_between(spreads):
    """(variance, df) of the between-process variance over spreads with two processes or more."""
    df = sum(s.processes - 1 for s in spreads if s and s.processes > 1)
    weighted = sum((s.processes - 1) * s.between for s in spreads if s and s.processes > 1)
    return (weighted / df if df > 0 else 0.0), df


def moderate(cell, pool):
    pool_variance, pool_df = pool
    prior_df = min(PRIOR_DF, pool_df)
    own_df = cell.processes - 1 if cell.processes > 1 else 0
    df = prior_df + own_df
    if df <= 0:
        return 0.0, 0.0
    variance = (prior_df * (cell.within_part + pool_variance) + own_df * cell.process_variance) / df
    return max(variance, cell.within_part), df


def compare_levels(base, base_pool, candidate, candidate_pool, confidence):
    """(value, low, high): base level / candidate level; low 0, high inf when unbounded."""
    if not base or not candidate or not base.processes or not candidate.processes:
        return None
    log_ratio = base.level - candidate.level
    vb, db = moderate(base, base_pool)
    vc, dc = moderate(candidate, candidate_pool)
    if db <= 0 or dc <= 0:
        return math.exp(log_ratio), 0.0, math.inf
    vb /= base.processes
    vc /= candidate.processes
    variance = vb + vc
    df = variance * variance / (vb * vb / db + vc * vc / dc) if variance > 0 else min(db, dc)
    half = t_quantile(confidence, max(df, 1e-3)) * math.sqrt(variance)
    return math.exp(log_ratio), math.exp(log_ratio - half), math.exp(log_ratio + half)


def _beta_fraction(a, b, x):
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-14:
            break
    return h


def _regularised_beta(a, b, x):
    if x <= 0 or x >= 1:
        return 0.0 if x <= 0 else 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) +
                     b * math.log(1 - x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(a, b, x) / a
    return 1 - front * _beta_fraction(b, a, 1 - x) / b


def _upper_tail(t, df):
    """P(T > t) for t >= 0."""
    return 0.5 * _regularised_beta(df / 2, 0.5, df / (df + t * t))


def t_quantile(confidence, df):
    """The two-sided interval's quantile: P(T > q) = (1 - confidence) / 2."""
    tail = (1 - confidence) / 2
    low, high = 0.0, 1.0
    while _upper_tail(high, df) > tail:
        high *= 2
    for _ in range(200):
        mid = (low + high) / 2
        low, high = (mid, high) if _upper_tail(mid, df) > tail else (low, mid)
    return (low + high) / 2

// Draws report.html's charts with Chart.js from the results document inlined in the page
// (#alloclab-data). Each chart is one function in `charts` below: it returns nothing when its
// data is not in this run, else calls add(). On <body>, data-charts-rendered counts the charts
// drawn, data-charts-total the figures made, data-script-errors the errors seen and
// data-resource-requests what the page fetched (must stay 0); the browser test checks them.
(function () {
  'use strict';
  const body = document.body;
  let errors = 0;
  window.addEventListener('error', () => body.setAttribute('data-script-errors', String(++errors)));
  body.setAttribute('data-script-errors', '0');

  const data = JSON.parse(document.getElementById('alloclab-data').textContent);
  const list = document.getElementById('chart-list');
  if (!list || typeof Chart === 'undefined') return;

  const style = getComputedStyle(document.documentElement);
  const css = (name) => style.getPropertyValue(name).trim();
  const palette = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948',
                   '#9c755f', '#ff9da7', '#bab0ac'];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = true;
  Chart.defaults.maintainAspectRatio = false;
  Chart.defaults.color = css('--fg');
  Chart.defaults.borderColor = css('--grid');
  Chart.defaults.font.family = getComputedStyle(body).fontFamily;

  // ---- facts shared by the charts ----
  const formatNs = (ns) => ns < 1e4 ? ns.toFixed(0) + ' ns'
                         : ns < 1e7 ? (ns / 1e3).toFixed(1) + ' µs' : (ns / 1e6).toFixed(1) + ' ms';
  const mallocs = (data.config && data.config.mallocs) || ['glibc'];
  const severalMallocs = mallocs.length > 1 || mallocs[0] !== 'glibc';
  const cellLabel = (c) => severalMallocs ? c.strategy + ' @ ' + c.malloc : c.strategy;
  const isBaseline = (w, c) => c.strategy === w.baseline.strategy && c.malloc === w.baseline.malloc;
  const labWorkloads = data.workloads.filter((w) => w.kind !== 'heap' && w.kind !== 'trace');
  const heapWorkloads = data.workloads.filter((w) => w.kind === 'heap');
  const shownCells = (w) => w.cells.filter((c) => !c.placement_twin);
  const markText = (vs) => vs.mark === 'n.s.' ? ' n.s.' : ' ' + vs.mark;
  // Log axes label 1, 2 and 5 × 10^n, or only 10^n when they span more than three decades;
  // the other grid lines stay unlabelled.
  const compact = (v) => String(parseFloat(v.toPrecision(3)));
  const tickNs = (v) => v < 1e3 ? compact(v) + ' ns' : v < 1e6 ? compact(v / 1e3) + ' µs'
                                                     : compact(v / 1e6) + ' ms';
  const labelled = (v, ticks) => {
    const values = ticks.map((t) => t.value).filter((t) => t > 0);
    const decades = Math.log10(Math.max(...values) / Math.min(...values));
    const m = v / Math.pow(10, Math.floor(Math.log10(v)));
    return (decades > 3 ? [1] : [1, 2, 5]).some((k) => Math.abs(m - k) < 1e-6);
  };
  const logTicks = { autoSkip: false, maxRotation: 0,
                     callback: (v, i, ticks) => labelled(Number(v), ticks) ? tickNs(Number(v)) : '' };
  const ratioTicks = { autoSkip: false, maxRotation: 0,
                       callback: (v, i, ticks) => labelled(Number(v), ticks) ? compact(Number(v)) + '×' : '' };

  let rendered = 0;
  // A titled figure with a canvas of `height` px; draws `config` in it.
  function add(id, title, caption, height, config) {
    const figure = document.createElement('figure');
    figure.className = 'chart';
    figure.id = 'chart-' + id;
    const heading = document.createElement('h3');
    heading.textContent = title;
    const box = document.createElement('div');
    box.className = 'canvas-box';
    box.style.height = height + 'px';
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', title);
    box.appendChild(canvas);
    const text = document.createElement('figcaption');
    text.textContent = caption;
    figure.append(heading, box, text);
    list.appendChild(figure);
    new Chart(canvas, config);
    body.setAttribute('data-charts-rendered', String(++rendered));
  }

  // Text drawn on each point of a scatter dataset that has `labels` (the heat map's figures).
  const pointLabels = {
    id: 'pointLabels',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      chart.data.datasets.forEach((set, i) => {
        if (!set.labels) return;
        chart.getDatasetMeta(i).data.forEach((point, j) => {
          const lines = set.labels[j];
          ctx.save();
          ctx.textAlign = 'center';
          ctx.textBaseline = 'middle';
          lines.forEach((line, k) => {
            ctx.font = (k === 0 ? 'bold 13px ' : '11px ') + Chart.defaults.font.family;
            ctx.fillStyle = set.labelColor;
            ctx.fillText(line, point.x, point.y + (k - (lines.length - 1) / 2) * 15);
          });
          ctx.restore();
        });
      });
    },
  };

  // Ratio > 1 (faster) green, < 1 red, saturating at 2x either way; pale when not significant.
  function ratioColor(ratio, significant) {
    const t = Math.max(-1, Math.min(1, Math.log2(ratio)));
    const hue = t >= 0 ? 145 : 5;
    const strength = Math.abs(t);
    const alpha = significant ? 0.25 + 0.7 * strength : 0.12 + 0.2 * strength;
    return `hsla(${hue}, 62%, 45%, ${alpha.toFixed(2)})`;
  }

  // A heat-map tile: a canvas filling its grid cell (Chart.js draws a canvas point style as is).
  function tile(ctx, color) {
    const area = ctx.chart.chartArea;
    const scales = ctx.chart.scales;
    const canvas = document.createElement('canvas');
    if (!area) return canvas;
    canvas.width = Math.max(1, area.width / scales.x.ticks.length - 4);
    canvas.height = Math.max(1, area.height / scales.y.ticks.length - 4);
    const g = canvas.getContext('2d');
    g.fillStyle = color;
    g.fillRect(0, 0, canvas.width, canvas.height);
    return canvas;
  }

  // ---- the charts; a new chart is one more function here ----
  function headlineHeatMap() {
    const rows = labWorkloads.filter((w) => w.cells.some((c) => c.vs_std));
    if (!rows.length) return;
    const columns = [];
    rows.forEach((w) => shownCells(w).forEach((c) => {
      if (!isBaseline(w, c) && !columns.includes(cellLabel(c))) columns.push(cellLabel(c));
    }));
    const points = [], labels = [], colors = [];
    rows.forEach((w) => shownCells(w).forEach((c) => {
      if (isBaseline(w, c)) return;
      const vs = c.vs_std;
      const ok = c.status === 'ok' && vs && vs.speedup_p50 !== null;
      const iv = ok && vs.intervals && vs.intervals.speedup_p50;
      points.push({ x: cellLabel(c), y: w.name });
      labels.push(ok ? [vs.speedup_p50.toFixed(2) + '×' + markText(vs),
                        iv ? `[${iv.low.toFixed(2)}–${iv.high.toFixed(2)}]` : '']
                     : [c.status.replace('_', ' ')]);
      colors.push(ok ? ratioColor(vs.speedup_p50, vs.significant) : 'rgba(128,128,128,0.15)');
    }));
    const base = rows[0].baseline;
    add('headline', `Speed vs ${base.strategy} @ ${base.malloc} at p50 (> 1: faster)`,
        'Each square: baseline p50 ÷ cell p50, its 95 % bootstrap interval over repetitions, and the ' +
        'Mann-Whitney U mark (** p < 0.01, * p < 0.05, n.s. not significant, ? too few ' +
        'repetitions). Green is faster, red slower, saturating at 2×; pale squares are not significant.',
        90 + rows.length * 62,
        {
          type: 'scatter',
          data: { datasets: [{ data: points, labels, labelColor: css('--fg'),
                               pointStyle: (ctx) => tile(ctx, colors[ctx.dataIndex]),
                               pointRadius: 20, pointHoverRadius: 20 }] },
          options: {
            plugins: { legend: { display: false },
                       tooltip: { callbacks: { label: (ctx) => `${ctx.raw.y} / ${ctx.raw.x}: ` +
                                               ctx.dataset.labels[ctx.dataIndex].join(' ') } } },
            scales: { x: { type: 'category', labels: columns, offset: true, position: 'top',
                           grid: { display: false } },
                      y: { type: 'category', labels: rows.map((w) => w.name), offset: true,
                           grid: { display: false } } },
          },
          plugins: [pointLabels],
        });
  }

  function latencyDistributions() {
    labWorkloads.forEach((w) => {
      const cells = shownCells(w).filter((c) => c.timing);
      if (!cells.length) return;
      const label = (c) => `${cellLabel(c)} · jitter ${formatNs(c.timing.jitter_ns)}`;
      const labels = cells.map(label);
      const points = (key) => cells.map((c) => ({ x: c.timing[key], y: label(c) }));
      const medians = [];
      cells.forEach((c) => c.timing.repetition_medians_ns.forEach((m) => medians.push({ x: m, y: label(c) })));
      add('latency-' + w.name, `${w.name}: latency per ${w.batched ? 'batch mean' : 'iteration'}`,
          'Thin bar: min to max; thick bar: p50 to p99 (its length is the absolute jitter, named on ' +
          'the left); diamonds: p90 and p99.9; dots: the median of each repetition. Log time axis.' +
          (w.batched ? ` Timed in batches of ${w.batch_size}: figures are batch means.` : ''),
          70 + cells.length * 34,
          {
            type: 'bar',
            data: { labels, datasets: [
              { label: 'min–max', data: cells.map((c) => [c.timing.min_ns, c.timing.max_ns]),
                backgroundColor: css('--neutral'), barPercentage: 0.18, grouped: false },
              { label: 'p50 → p99 (jitter)', data: cells.map((c) => [c.timing.p50_ns, c.timing.p99_ns]),
                backgroundColor: cells.map((c, i) => palette[i % palette.length]), barPercentage: 0.7,
                grouped: false },
              { type: 'scatter', label: 'p90', data: points('p90_ns'), pointStyle: 'rectRot',
                pointRadius: 4, backgroundColor: css('--fg') },
              { type: 'scatter', label: 'p99.9', data: points('p999_ns'), pointStyle: 'rectRot',
                pointRadius: 4, backgroundColor: css('--bad') },
              { type: 'scatter', label: 'repetition medians', data: medians, pointRadius: 2.5,
                backgroundColor: css('--bg'), borderColor: css('--fg'), borderWidth: 1 },
            ] },
            options: {
              indexAxis: 'y',
              plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } },
                         tooltip: { callbacks: { label: (ctx) => {
                           const v = ctx.raw;
                           return Array.isArray(v) ? `${ctx.dataset.label}: ${formatNs(v[0])} – ${formatNs(v[1])}`
                                                   : `${ctx.dataset.label}: ${formatNs(v.x)}`;
                         } } } },
              scales: { x: { type: 'logarithmic', title: { display: true, text: 'ns (log scale)' },
                             ticks: logTicks },
                        y: { type: 'category', labels } },
            },
          });
    });
  }

  function heapStudy() {
    const shown = heapWorkloads.filter((w) => w.cells.some((c) => c.ns_per_pair));
    if (!shown.length) return;
    const name = (w) => {
      const s = w.heap_spec || {};
      return s.dist ? `${s.dist} · ${s.kernel}` : w.name;
    };
    const datasets = mallocs.map((m, i) => ({
      label: m,
      data: shown.map((w) => {
        const c = w.cells.find((cell) => cell.malloc === m);
        return c && c.status === 'ok' && c.ns_per_pair ? c.ns_per_pair.mean : null;
      }),
      backgroundColor: palette[i % palette.length],
    }));
    add('heap-study', 'Heap study: mean ns per malloc+free pair (seed 003; lower is better)',
        'Grouped by size distribution and kernel, one bar per malloc, log scale; the NOOP loop is ' +
        'subtracted (a cost at or below it has no bar). Every block gets one write per page ' +
        '(heap_spec.touch_stride), so the cost includes its page faults: see docs/heap-study.md.',
        360, {
          type: 'bar',
          data: { labels: shown.map(name), datasets },
          options: { plugins: { legend: { position: 'bottom' } },
                     scales: { y: { type: 'logarithmic', title: { display: true, text: 'ns per pair (log scale)' },
                                    ticks: logTicks } } },
        });
  }

  // Horizontal interval chart: per row, floating bars [low, high] and points at values.
  function intervalChart(id, title, caption, rows, sets, axisTitle) {
    add(id, title, caption, 80 + rows.length * 36, {
      type: 'bar',
      data: { labels: rows, datasets: sets },
      options: {
        indexAxis: 'y',
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        scales: { x: { type: 'logarithmic', title: { display: true, text: axisTitle },
                       ticks: ratioTicks },
                  y: { type: 'category', labels: rows } },
      },
    });
  }

  function placement() {
    const rows = [], withCliff = [], withoutCliff = [], values = [];
    labWorkloads.forEach((w) => {
      if (!w.placement || !w.placement.strategies) return;
      w.placement.strategies.forEach((s) => {
        if (!s.with_cliff || !s.without_cliff) return;
        const row = `${w.name} / ${s.strategy}${s.placement_driven ? ' (placement-driven)' : ''}`;
        rows.push(row);
        const range = (e) => e.interval ? [e.interval.low, e.interval.high] : [e.value, e.value];
        withCliff.push(range(s.with_cliff));
        withoutCliff.push(range(s.without_cliff));
        values.push({ x: s.with_cliff.value, y: row }, { x: s.without_cliff.value, y: row });
      });
    });
    if (!rows.length) return;
    intervalChart('placement', 'Placement: speedup over std with the copy cliff and without',
                  'Bars: 95 % intervals of each strategy\'s speedup over std under plain glibc (with ' +
                  'memmove\'s copy cliff) and under ' + (data.config.placement_twin || 'the twin') +
                  ' (without it); dots: the ratios. Where the two bars part, the ratio measures copying, ' +
                  'not the allocator.',
                  rows, [
                    { label: 'with cliff (glibc)', data: withCliff, backgroundColor: palette[1], barPercentage: 0.45 },
                    { label: 'without cliff', data: withoutCliff, backgroundColor: palette[0], barPercentage: 0.45 },
                    { type: 'scatter', label: 'ratio', data: values, pointRadius: 3, backgroundColor: css('--fg') },
                  ], 'speedup over std (log scale)');
  }

  // The claims carry their figures as text ("1.27x [1.10, 1.40]", "accepted 1.17-1.68").
  function seedClaims() {
    const rows = [], accepted = [], measured = [], colors = [], values = [];
    (data.claims || []).forEach((c) => {
      const range = /accepted ([0-9.]+)-([0-9.]+)/.exec(c.detail || '');
      if (!range) return;
      const found = /(?:([\w.:+-]+) )?([0-9.]+)x \[([0-9.]+), ([0-9.]+)\]/g;
      let m;
      while ((m = found.exec(c.measured || '')) !== null) {
        const row = `${c.id}${m[1] ? ' @ ' + m[1] : ''}: ${c.verdict}`;
        rows.push(row);
        accepted.push([Number(range[1]), Number(range[2])]);
        measured.push([Number(m[3]), Number(m[4])]);
        values.push({ x: Number(m[2]), y: row });
        colors.push(c.verdict === 'reproduced' ? css('--good') : c.verdict === 'refuted' ? css('--bad')
                                                                                        : css('--neutral'));
      }
    });
    if (!rows.length) return;
    intervalChart('claims', 'Seed claims: measured interval against the accepted range',
                  'Wide pale bar: the range a claim accepts (claimed value ± its tolerance); narrow bar: ' +
                  'the measured 95 % interval (green reproduced, red refuted, grey inconclusive or too ' +
                  'small a run); dot: the measured ratio. Claims without a ratio are in the table below.',
                  rows, [
                    { label: 'accepted range', data: accepted, backgroundColor: css('--range'),
                      barPercentage: 0.9, grouped: false },
                    { label: 'measured interval', data: measured, backgroundColor: colors,
                      barPercentage: 0.35, grouped: false },
                    { type: 'scatter', label: 'measured', data: values, pointRadius: 3.5,
                      backgroundColor: css('--fg') },
                  ], 'ratio, > 1 favours the candidate (log scale)');
  }

  // `alloclab compare -o X.html`: B/A per common cell with its interval.
  function comparison() {
    if (!data.comparison) return;
    const rows = data.comparison.common.filter((r) => r.ratio !== null);
    if (!rows.length) return;
    const label = (r) => `${r.workload} / ${r.strategy} @ ${r.malloc}`;
    intervalChart('compare', 'B ÷ A at p50 (< 1: B is faster)',
                  'Bars: 95 % bootstrap interval of median(B) ÷ median(A) over repetitions; dots: the ' +
                  'ratio of the p50s. Red: significant slowdown, green: significant speed-up.',
                  rows.map(label), [
                    { label: '95 % interval', data: rows.map((r) => r.interval ? [r.interval.low, r.interval.high]
                                                                                 : [r.ratio, r.ratio]),
                      backgroundColor: rows.map((r) => !r.significant ? css('--neutral')
                                                       : r.ratio > 1 ? css('--bad') : css('--good')),
                      barPercentage: 0.5 },
                    { type: 'scatter', label: 'B ÷ A', data: rows.map((r) => ({ x: r.ratio, y: label(r) })),
                      pointRadius: 3.5, backgroundColor: css('--fg') },
                  ], 'B ÷ A (log scale)');
  }

  const charts = [headlineHeatMap, latencyDistributions, heapStudy, placement, seedClaims, comparison];
  charts.forEach((chart) => chart());
  body.setAttribute('data-charts-total', String(list.querySelectorAll('figure.chart').length));
  body.setAttribute('data-resource-requests', String(performance.getEntriesByType('resource').length));
})();

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
  if (!data.workloads) data.workloads = [];  // a program-frame run (`alloclab try`) has none
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
  const labWorkloads = data.workloads.filter((w) => !w.kind || w.kind === 'lab');
  const heapWorkloads = data.workloads.filter((w) => w.kind === 'heap');
  const shownCells = (w) => w.cells.filter((c) => !c.placement_twin);
  // The report's verdict in one word, added by the page (render/html.cpp with_verdicts).
  const verdictText = (vs) => vs.verdict ? ' ' + vs.verdict : '';
  const decided = (vs) => vs.verdict === 'faster' || vs.verdict === 'slower';
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
  // Within a narrow range (less than half a decade) every tick is labelled.
  const narrow = (ticks) => {
    const values = ticks.map((t) => t.value).filter((t) => t > 0);
    return Math.log10(Math.max(...values) / Math.min(...values)) < 0.5;
  };
  const ratioTicks = { autoSkip: true, maxRotation: 0,
                       callback: (v, i, ticks) => narrow(ticks) || labelled(Number(v), ticks)
                         ? compact(Number(v)) + '×' : '' };

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

  // Ratio > 1 (faster) green, < 1 red, saturating at 2x either way; pale when not decided.
  function ratioColor(ratio, significant) {
    const t = Math.max(-1, Math.min(1, Math.log2(ratio)));
    const hue = t >= 0 ? 145 : 5;
    const strength = Math.abs(t);
    const alpha = significant ? 0.25 + 0.7 * strength : 0.12 + 0.2 * strength;
    return `hsla(${hue}, 62%, 45%, ${alpha.toFixed(2)})`;
  }

  // A titled figure holding an HTML element instead of a canvas (the heat map: a table, so that
  // 19 columns wrap and scroll instead of drawing texts over each other).
  function addElement(id, title, caption, element) {
    const figure = document.createElement('figure');
    figure.className = 'chart';
    figure.id = 'chart-' + id;
    const heading = document.createElement('h3');
    heading.textContent = title;
    const text = document.createElement('figcaption');
    text.textContent = caption;
    figure.append(heading, element, text);
    list.appendChild(figure);
    body.setAttribute('data-charts-rendered', String(++rendered));
  }

  // A cell of `row` holding `lines` (the first in bold); names break after their underscores.
  function cellOf(row, tag, lines) {
    const cell = document.createElement(tag);
    lines.forEach((line, i) => {
      const span = document.createElement('span');
      if (i === 0) span.className = 'first';
      line.split('_').forEach((part, k, parts) => {
        span.append(part + (k < parts.length - 1 ? '_' : ''));
        if (k < parts.length - 1) span.append(document.createElement('wbr'));
      });
      cell.appendChild(span);
    });
    row.appendChild(cell);
    return cell;
  }

  // Heat-map cells whose text is wider than the cell, or that overlap a neighbour, and the
  // table's scroll box when it reaches past the page's column (the browser test reads the
  // count: it must be 0 at every report size).
  function overflowingCells(table) {
    let count = table.parentElement.getBoundingClientRect().right >
                list.getBoundingClientRect().right + 1 ? 1 : 0;
    table.querySelectorAll('tr').forEach((tr) => {
      let right = -Infinity;
      tr.querySelectorAll('th, td').forEach((cell) => {
        const box = cell.getBoundingClientRect();
        if (cell.scrollWidth > cell.clientWidth + 1 || box.left < right - 1) ++count;
        right = box.right;
      });
    });
    return count;
  }

  // ---- the charts; a new chart is one more function here ----
  function headlineHeatMap() {
    const rows = labWorkloads.filter((w) => w.cells.some((c) => c.vs_std));
    if (!rows.length) return;
    const columns = [];
    rows.forEach((w) => shownCells(w).forEach((c) => {
      if (!isBaseline(w, c) && !columns.includes(cellLabel(c))) columns.push(cellLabel(c));
    }));
    const table = document.createElement('table');
    table.className = 'heatmap';
    const head = table.createTHead().insertRow();
    cellOf(head, 'th', ['workload']).className = 'row-label';
    columns.forEach((name) => cellOf(head, 'th', [name]));
    const tbody = table.createTBody();
    rows.forEach((w) => {
      const tr = tbody.insertRow();
      cellOf(tr, 'th', [w.name]).className = 'row-label';
      columns.forEach((name) => {
        const c = shownCells(w).find((cell) => cellLabel(cell) === name && !isBaseline(w, cell));
        const vs = c && c.vs_std;
        const ok = c && c.status === 'ok' && vs && vs.speedup_p50 !== null;
        // The ratio and interval the verdict came from (render/html.cpp with_verdicts).
        const shown = ok && (vs.shown || Object.assign({ value: vs.speedup_p50, paired: false },
                                                       vs.intervals && vs.intervals.speedup_p50));
        const mark = ok && data.interval_legend && !shown.paired ? ' †' : '';
        const lines = ok ? [shown.value.toFixed(2) + '×' + verdictText(vs) + mark,
                            shown.low != null ? `[${shown.low.toFixed(2)}–${shown.high.toFixed(2)}]` : '']
                         : [c ? c.status.replace(/_/g, ' ') : 'not run'];
        const td = cellOf(tr, 'td', lines.filter((line) => line !== ''));
        td.style.background = ok ? ratioColor(shown.value, decided(vs)) : 'rgba(128,128,128,0.15)';
        td.title = `${w.name} / ${name}: ` + lines.join(' ');
      });
    });
    const scroll = document.createElement('div');
    scroll.className = 'heatmap-scroll';
    scroll.appendChild(table);
    const base = rows[0].baseline;
    addElement('headline', `Speed vs ${base.strategy} @ ${base.malloc} at p50 (> 1: faster)`,
        (data.interval_legend ? 'Each square: the ratio, its interval and the verdict in one word, as ' +
          'report.md\'s tables give them in full. ' + data.interval_legend + ' ' :
        'Each square: baseline p50 ÷ cell p50 (each side\'s median repetition p50), its 95 % bootstrap interval over repetitions, and the ' +
        'verdict in one word, as report.md\'s tables give it in full (faster/slower: decided; same: the ' +
        'same within the noise floor; open: open). ') + 'Green is faster, red slower, saturating at 2×; pale ' +
        'squares are not decided. ' +
        'A wide table scrolls sideways; the workload names stay in view.',
        scroll);
    body.setAttribute('data-heatmap-overflows', String(overflowingCells(table)));
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
          'Thin bar: min to max; thick bar, one colour per strategy: p50 to p99 (its length is the absolute jitter, named on ' +
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
              // The jitter bars are coloured per strategy (named on the axis): no one swatch
              // stands for them, so the legend lists the other marks only.
              plugins: { legend: { position: 'bottom',
                                   labels: { boxWidth: 12,
                                             filter: (item, chartData) => !Array.isArray(
                                               chartData.datasets[item.datasetIndex].backgroundColor) } },
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
      if (!s.dist) return w.name;
      return `${s.dist} · ${s.kernel}${s.touch === 'once' ? '' : ' · every page'}`;
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
        'subtracted (a cost at or below it has no bar). Seed 003\'s method writes each block once; ' +
        'bars marked "every page" write every page of every block, so they include the page ' +
        'faults the seed\'s method leaves out: see docs/heap-study.md.',
        360, {
          type: 'bar',
          data: { labels: shown.map(name), datasets },
          options: { plugins: { legend: { position: 'bottom' } },
                     scales: { y: { type: 'logarithmic', title: { display: true, text: 'ns per pair (log scale)' },
                                    ticks: logTicks } } },
        });
  }

  // Seed 003's figure: share of requests per power-of-two size band. Workloads that drew the same
  // sizes (a heap distribution under several kernels) share one series.
  function sizeHistograms() {
    const series = new Map();
    data.workloads.forEach((w) => {
      if (!w.size_histogram || !w.size_histogram.bands.length) return;
      const key = JSON.stringify(w.size_histogram.bands);
      if (!series.has(key)) series.set(key, { names: [], bands: w.size_histogram.bands });
      series.get(key).names.push(w.name);
    });
    if (!series.size) return;
    const width = Math.max(...[...series.values()].map((s) => s.bands.length));
    const bandText = (k) => k < 10 ? `${2 ** k} B` : k < 20 ? `${2 ** (k - 10)} KiB` : `${2 ** (k - 20)} MiB`;
    const labels = Array.from({ length: width }, (_, k) => bandText(k));
    const datasets = [...series.values()].map((s, i) => {
      const total = s.bands.reduce((a, b) => a + b, 0);
      return {
        label: s.names.length > 2 ? `${s.names[0]} (+${s.names.length - 1} with the same sizes)`
                                  : s.names.join(', '),
        data: labels.map((_, k) => 100 * (s.bands[k] || 0) / total),
        backgroundColor: palette[i % palette.length],
      };
    });
    add('size-histograms', 'Request sizes: share of requests per power-of-two band (seed 003\'s figure)',
        'Bar k: requests of at least the band\'s size and less than twice it. Lab workloads: one ' +
        'iteration counted by a tracking pass over std; heap study: the sizes each kernel drew.',
        320, {
          type: 'bar',
          data: { labels, datasets },
          options: { plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
                     scales: { x: { title: { display: true, text: 'request size, from' } },
                               y: { title: { display: true, text: '% of requests' } } } },
        });
  }

  // Horizontal interval chart: per row, floating bars [low, high] and points at values.
  // Ratios with their intervals: dots over bars, later bars over earlier (a lower order is on top),
  // and the axis spans the data, not fixed decades, so 0.87–1.06 is not a sliver.
  function intervalChart(id, title, caption, rows, sets, axisTitle) {
    const values = [];
    sets.forEach((set) => set.data.forEach((d) => {
      (Array.isArray(d) ? d : [d && typeof d === 'object' ? d.x : d]).forEach((v) => {
        if (typeof v === 'number' && v > 0) values.push(v);
      });
    }));
    values.push(1);  // the line that matters is always in view
    const low = Math.min(...values), high = Math.max(...values);
    const pad = Math.pow(high / low, 0.06) * 1.01;
    sets.forEach((set, i) => { set.order = set.type === 'scatter' ? 0 : sets.length - i; });
    add(id, title, caption, 80 + rows.length * 36, {
      type: 'bar',
      data: { labels: rows, datasets: sets },
      options: {
        indexAxis: 'y',
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
        scales: { x: { type: 'logarithmic', min: low / pad, max: high * pad,
                       title: { display: true, text: axisTitle }, ticks: ratioTicks },
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

  // Per workload and malloc: the best alloclab strategy against its closest peer (the lowest
  // ratio), which is the peer that decides the verdict.
  function peers() {
    const rows = [], intervals = [], colors = [], values = [];
    labWorkloads.forEach((w) => {
      (w.peer_verdicts || []).forEach((v) => {
        // The placement twin re-measures glibc for the placement section, not for this one.
        if (!v.best_alloclab || !v.peers.length || v.malloc === data.config.placement_twin) return;
        const closest = v.peers.reduce((a, b) => (b.ratio < a.ratio ? b : a));
        const row = `${w.name}${v.malloc !== 'glibc' ? ' @ ' + v.malloc : ''}: ` +
                    `${v.best_alloclab.strategy} vs ${closest.strategy}`;
        rows.push(row);
        intervals.push(closest.interval ? [closest.interval.low, closest.interval.high]
                                        : [closest.ratio, closest.ratio]);
        values.push({ x: closest.ratio, y: row });
        colors.push(v.verdict === 'met' ? css('--good') : v.verdict === 'missed' ? css('--bad')
                                                                                 : css('--neutral'));
      });
    });
    if (!rows.length) return;
    intervalChart('peers', 'alloclab vs its closest peer: peer p50 ÷ best alloclab p50',
                  'Per workload: the fastest alloclab_* strategy against the fastest peer ' +
                  '(foonathan, Boost, mimalloc heap, libstdc++ pmr). Bar: 95 % bootstrap interval over ' +
                  'repetitions (green: every peer beaten, p < 0.05 with the interval above 1; red: missed; grey: not ' +
                  'judged); dot: the ratio. Right of 1: alloclab is faster.',
                  rows, [
                    { label: '95 % interval', data: intervals, backgroundColor: colors, barPercentage: 0.5 },
                    { type: 'scatter', label: 'ratio', data: values, pointRadius: 3.5,
                      backgroundColor: css('--fg') },
                  ], 'peer p50 ÷ best alloclab p50 (log scale)');
  }

  // Each judged ratio claim carries its accepted range and one estimate per malloc judged.
  function seedClaims() {
    const rows = [], accepted = [], measured = [], colors = [], values = [];
    (data.claims || []).forEach((c) => {
      if (!c.accepted) return;
      (c.estimates || []).forEach((e) => {
        if (e.low === null || e.high === null) return;
        const row = `${c.id}${e.malloc !== 'glibc' ? ' @ ' + e.malloc : ''}: ${c.verdict}`;
        rows.push(row);
        accepted.push([c.accepted.low, c.accepted.high]);
        measured.push([e.low, e.high]);
        values.push({ x: e.value, y: row });
        colors.push(c.verdict === 'reproduced' ? css('--good') : c.verdict === 'refuted' ? css('--bad')
                                                                                        : css('--neutral'));
      });
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

  // Serve frame: each variant's batch speedup, its measured serve ratio and Amdahl's prediction.
  function batchVsServe() {
    const rows = [], batch = [], served = [], predicted = [], values = [];
    const range = (e) => e.interval ? [e.interval.low, e.interval.high] : [e.value, e.value];
    ((data.serve && data.serve.workloads) || []).forEach((w) => {
      w.cells.forEach((c) => {
        const b = c.batch;
        if (c.status !== 'ok' || !c.vs_std || !b || !b.speedup_p50 || !b.measured_serve_ratio) return;
        const row = `${w.name} / ${c.strategy} @ ${c.malloc}`;
        rows.push(row);
        batch.push(range(b.speedup_p50));
        served.push(range(b.measured_serve_ratio));
        values.push({ x: b.speedup_p50.value, y: row }, { x: b.measured_serve_ratio.value, y: row });
        if (b.predicted_serve_ratio) predicted.push({ x: b.predicted_serve_ratio, y: row });
      });
    });
    if (!rows.length) return;
    intervalChart('batch-vs-serve', 'Batch vs serve: speedup over the baseline variant',
                  'Bars: 95 % intervals over repetitions of the batch speedup at p50 and of the served ' +
                  'throughput ratio (hey, one iteration per request); dots: the ratios; diamonds: Amdahl\'s ' +
                  'prediction of the serve ratio from the batch speedup and the workload\'s share of the ' +
                  'server\'s CPU per request. A batch win that the serve bar does not show is Amdahl at work.',
                  rows, [
                    { label: 'batch (p50)', data: batch, backgroundColor: palette[0], barPercentage: 0.45 },
                    { label: 'served (hey req/s)', data: served, backgroundColor: palette[1], barPercentage: 0.45 },
                    { type: 'scatter', label: 'ratio', data: values, pointRadius: 3, backgroundColor: css('--fg') },
                    { type: 'scatter', label: 'Amdahl prediction', data: predicted, pointRadius: 6,
                      pointStyle: 'rectRot', backgroundColor: palette[2] },
                  ], 'ratio, > 1 favours the variant (log scale)');
  }

  // A comparison row's verdict class (compare.hpp `verdict`, stats/decision.hpp verdict_word)
  // -> its colour: every class its own, so "the same within the floor" is not drawn as "open".
  const compareVerdictColor = { slower: '--bad', faster: '--good', same: '--accent', open: '--neutral' };

  // `alloclab compare -o X.html`: B/A per common cell with its interval.
  function comparison() {
    if (!data.comparison) return;
    const rows = data.comparison.common.filter((r) => r.ratio !== null);
    if (!rows.length) return;
    const label = (r) => `${r.workload} / ${r.strategy} @ ${r.malloc}`;
    intervalChart('compare', 'B ÷ A at p50 (< 1: B is faster)',
                  'Bars: 95 % bootstrap interval of median(B) ÷ median(A) over repetitions; dots: the ' +
                  'ratio of the p50s. Coloured by the verdict (the table\'s change column): red decided ' +
                  'slower, green decided faster, blue the same within the noise floor, grey open.',
                  rows.map(label), [
                    { label: '95 % interval', data: rows.map((r) => r.interval ? [r.interval.low, r.interval.high]
                                                                                 : [r.ratio, r.ratio]),
                      backgroundColor: rows.map((r) => css(compareVerdictColor[r.verdict] || '--neutral')),
                      barPercentage: 0.5 },
                    { type: 'scatter', label: 'B ÷ A', data: rows.map((r) => ({ x: r.ratio, y: label(r) })),
                      pointRadius: 3.5, backgroundColor: css('--fg') },
                  ], 'B ÷ A (log scale)');
  }

  // RSS over time: memory-frame cells and heap-frame cells carry the first process's series.
  function memoryOverTime() {
    const seriesOf = (c) => (c.memory_frame && c.memory_frame.rss_series) ||
                            (c.memory && c.memory.rss_series) || null;
    data.workloads.filter((w) => w.kind === 'memory' || w.kind === 'heap').forEach((w) => {
      const cells = w.cells.filter((c) => c.status === 'ok' && seriesOf(c) && seriesOf(c).t_ms.length);
      if (!cells.length) return;
      const datasets = cells.map((c, i) => {
        const s = seriesOf(c);
        return { label: `${c.strategy} @ ${c.malloc}`, borderColor: palette[i % palette.length],
                 backgroundColor: palette[i % palette.length], pointRadius: 0, borderWidth: 1.5,
                 data: s.t_ms.map((t, j) => ({ x: t / 1000, y: s.rss_bytes[j] / 1048576 })) };
      });
      const budget = w.memory_spec && w.memory_spec.budget_bytes;
      const end = Math.max(...datasets.map((d) => d.data.length ? d.data[d.data.length - 1].x : 0));
      if (budget && w.name === 'budget_bursts') {
        [[1, 'budget', '--bad'], [0.9, 'soft threshold (90 %)', '--neutral']].forEach(([f, label, color]) =>
          datasets.push({ label, borderColor: css(color), backgroundColor: css(color), borderDash: [6, 4],
                          pointRadius: 0, borderWidth: 1,
                          data: [{ x: 0, y: f * budget / 1048576 }, { x: end, y: f * budget / 1048576 }] }));
      }
      add('memory-' + w.name, `${w.name}: memory over time (RSS of the first process)`,
          'RSS sampled every 10 ms through the first process of each cell (the period doubles when a ' +
          'long cell fills its storage). ' + (w.kind === 'heap'
            ? 'Heap study: the kernels run, then RSS is read 0 ms, 100 ms and 1 s after the last free, ' +
              'then after the allocator\'s purge.'
            : w.name === 'budget_bursts'
            ? 'Budget workload: bursts towards the budget and back; a trimming strategy should fall ' +
              'below the soft threshold (dashed) between bursts.'
            : 'Huge-table workload: the table is filled, then accessed at random; RSS shows the fill.'),
          300, {
            type: 'line',
            data: { datasets },
            options: { parsing: true, plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } } },
                       scales: { x: { type: 'linear', title: { display: true, text: 'seconds since the worker started' } },
                                 y: { type: 'linear', beginAtZero: true, title: { display: true, text: 'MiB' } } } },
          });
    });
  }

  // The program frame (`alloclab try`): each combination's median CPU time against its median
  // peak RSS; the Pareto front (nothing else has less of both) is joined by a line.
  // Names beside the points of datasets that carry `names`, and whiskers for their `whiskers`
  // ({x: [low, high], y: [low, high]} in data units), both drawn after the points.
  const namedPoints = {
    id: 'namedPoints',
    afterDatasetsDraw(chart) {
      const ctx = chart.ctx;
      const { x: xs, y: ys } = chart.scales;
      const area = chart.chartArea;
      ctx.save();
      ctx.beginPath();
      ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
      ctx.clip();
      chart.data.datasets.forEach((set, i) => {
        if (!set.names) return;
        chart.getDatasetMeta(i).data.forEach((point, j) => {
          ctx.save();
          ctx.strokeStyle = set.borderColor;
          ctx.lineWidth = 1.5;
          const w = set.whiskers && set.whiskers[j];
          if (w && w.x) {
            ctx.beginPath();
            ctx.moveTo(xs.getPixelForValue(w.x[0]), point.y);
            ctx.lineTo(xs.getPixelForValue(w.x[1]), point.y);
            ctx.stroke();
          }
          if (w && w.y) {
            ctx.beginPath();
            ctx.moveTo(point.x, ys.getPixelForValue(w.y[0]));
            ctx.lineTo(point.x, ys.getPixelForValue(w.y[1]));
            ctx.stroke();
          }
          ctx.fillStyle = css('--fg');
          ctx.font = '12px ' + Chart.defaults.font.family;
          ctx.textBaseline = 'bottom';
          ctx.fillText(set.names[j], point.x + 9, point.y - 6);
          ctx.restore();
        });
      });
      ctx.restore();
    },
  };

  function programTradeOff() {
    if (!data.program) return;
    const measured = data.program.combinations.filter((c) => c.runs_ok > 0);
    if (!measured.length) return;
    const point = (c) => ({ x: c.median.cpu_seconds, y: c.median.peak_rss_bytes / 1048576, name: c.name });
    const base = measured.find((c) => c.name === data.program.baseline);
    // A ratio's 95 % interval against the baseline, as a range around the baseline's median.
    const range = (vs, baseValue) => vs && vs.interval ? [baseValue * vs.interval.low, baseValue * vs.interval.high] : null;
    const whisker = (c) => base ? { x: range(c.cpu_vs_baseline, point(base).x),
                                    y: range(c.peak_rss_vs_baseline, point(base).y) } : null;
    const front = measured.filter((c) => c.pareto_front).map(point).sort((a, b) => a.x - b.x);
    // Each axis spans every point and whisker.
    const extent = (axis) => {
      const values = measured.flatMap((c) => [point(c)[axis]].concat((whisker(c) || {})[axis] || []));
      return { suggestedMin: Math.min(...values), suggestedMax: Math.max(...values) };
    };
    const sets = measured.map((c, i) => ({
      label: c.name + (c.pareto_front ? ' (front)' : ''), data: [point(c)], names: [c.name],
      whiskers: [whisker(c)],
      pointRadius: c.pareto_front ? 8 : 7, pointHoverRadius: 9, borderWidth: 2,
      pointStyle: c.pareto_front ? 'circle' : 'rectRot',
      backgroundColor: palette[i % palette.length], borderColor: palette[i % palette.length] }));
    if (front.length > 1)
      sets.unshift({ type: 'line', label: 'Pareto front', data: front, showLine: true,
                     borderColor: css('--good'), backgroundColor: css('--good'), pointRadius: 0,
                     borderWidth: 2, borderDash: [6, 3] });
    add('program-trade-off', 'Your program: CPU time against peak RSS, per malloc and knob variant',
        'Medians over the successful runs of each combination. CPU time is user + sys of the whole ' +
        'process tree (wait4); peak RSS is the largest process\'s. Whiskers: the 95 % interval of ' +
        'each ratio to the baseline, drawn around the baseline\'s median. Circles form the Pareto ' +
        'front' + (front.length > 1 ? ' (joined by the dashed line)' : '') + ': no other combination ' +
        'uses both less CPU and less memory. Pick a point on it.',
        380, {
          type: 'scatter',
          data: { datasets: sets },
          options: { layout: { padding: { right: 90, top: 16 } },
                     plugins: { legend: { position: 'bottom', labels: { boxWidth: 12 } },
                                tooltip: { callbacks: { label: (ctx) => `${ctx.raw.name}: ` +
                                  `${ctx.raw.x.toFixed(3)} s CPU, ${ctx.raw.y.toFixed(1)} MiB peak RSS` } } },
                     scales: { x: { type: 'linear', grace: '10%', ...extent('x'), title: { display: true, text: 'median CPU time, user + sys (s)' } },
                               y: { type: 'linear', grace: '10%', ...extent('y'), title: { display: true, text: 'median peak RSS (MiB)' } } } },
          plugins: [namedPoints],
        });
  }

  const charts = [headlineHeatMap, peers, latencyDistributions, heapStudy, sizeHistograms,
                  memoryOverTime, batchVsServe, placement, seedClaims, comparison, programTradeOff];
  charts.forEach((chart) => chart());
  body.setAttribute('data-charts-total', String(list.querySelectorAll('figure.chart').length));
  body.setAttribute('data-resource-requests', String(performance.getEntriesByType('resource').length));
})();

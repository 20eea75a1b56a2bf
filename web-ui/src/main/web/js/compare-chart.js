// The overlays of a comparison, the baseline solid and the candidate dashed, one colour per series:
// two experiments' curves (bandwidth vs message size, or typical latency vs message size, log y, where the
// points are judged on latency); two runs' cycle-time distributions; or, against baselines, each point's
// bandwidth (or latency) on both sides. What neither axis nor the series fixes, the server splits into
// further lines, so no line mixes configurations.
import { getCurve } from './api.js';
import { chartCard, showChart } from './chart-card.js';
import { latencyVsSizeSpec, toSeries } from './curve-specs.js';
import { drawDistributions, loadDistributions } from './distribution.js';
import { h } from './dom.js';
import { bytesPerSecondToGbit, formatSeries } from './format.js';
import { splitParams } from './params.js';

const LATENCY_METRIC = 'latency_typical_us';

const BANDWIDTH = {
  name: 'compareBandwidth',
  canvasId: 'chart-compare-bw',
  title: 'Bandwidth vs message size',
  query: () => ({ x: 'msg_size', y: 'bw_avg_bps', series: 'threads' }),
  toUnit: bytesPerSecondToGbit,
  field: 'bwAvgBps',
  axes: { xKind: 'size', xTitle: 'Message size (bytes, log2)', yTitle: 'Bandwidth (Gbit/s)', unit: 'Gbit/s' },
};

const LATENCY = {
  name: 'compareLatency',
  canvasId: 'chart-compare-latency',
  title: 'Latency vs message size',
  query: (varying) => latencyVsSizeSpec(varying).query,
  toUnit: (us) => us,
  field: 'latencyTypicalUs',
  axes: {
    xKind: 'size', xTitle: 'Message size (bytes, log2)', yTitle: 'Latency, typical (µs, log)', unit: 'µs', yLog: true,
  },
};

const byValue = (a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));

/** Both sides' series, each with its side in the label; series of equal value (and split) share a colour. */
function overlay(baselineSeries, candidateSeries) {
  const sides = [['baseline', baselineSeries, false], ['candidate', candidateSeries, true]]
    .map(([side, list, dashed]) => list.map((s) => ({ ...s, label: `${side} · ${s.label}`, dashed })));
  const keyOf = (s) => s.key ?? JSON.stringify([s.value, null]);
  const values = [...new Map(sides.flat().map((s) => [keyOf(s), s.value])).entries()]
    .sort(([ka, a], [kb, b]) => byValue(a, b) || ka.localeCompare(kb)).map(([key]) => key);
  const series = sides.flat().sort((a, b) => values.indexOf(keyOf(a)) - values.indexOf(keyOf(b))
    || Number(a.dashed) - Number(b.dashed))
    .map((s) => ({ ...s, colorIndex: values.indexOf(keyOf(s)) }));
  return { series, colorCount: values.length };
}

/** The points' metric on one side as series by thread count against message size. */
function pointSeries(points, side, chart) {
  const byThreads = new Map();
  for (const point of points) {
    const threads = point.params?.threads ?? 1;
    if (!byThreads.has(threads)) byThreads.set(threads, []);
    const stats = point[side];
    byThreads.get(threads).push({ x: point.params?.msg_size, y: chart.toUnit(stats?.[chart.field]), n: stats?.runs });
  }
  return [...byThreads.entries()].map(([value, list]) => ({
    value, label: formatSeries('threads', value), points: list.filter((p) => p.y !== null && p.y !== undefined).sort((a, b) => a.x - b.x),
  }));
}

/** Which overlays a comparison calls for: latency where points are judged on latency, bandwidth where not. */
function wanted(points) {
  const latency = points.some((p) => p.metric === LATENCY_METRIC);
  return { latency, bandwidth: !latency || points.some((p) => p.metric && p.metric !== LATENCY_METRIC) };
}

/** → {element, draw(query, comparison, isCurrent)}: the chart cards of a mode and how they are drawn. */
export function compareCharts(mode) {
  if (mode === 'runs') {
    const card = chartCard({
      name: 'compareDistribution', canvasId: 'chart-compare-distribution', title: 'Cycle-time distribution', className: 'compare-chart',
    });
    card.classList.add('no-data'); // shown once it has something to draw: an imported run kept no cycle times
    return {
      element: card,
      async draw(query, comparison, isCurrent) {
        const runs = [comparison.baseline, comparison.candidate];
        const series = await loadDistributions(runs.map((side, i) => ({
          id: side.runId, label: `${i ? 'candidate' : 'baseline'} · run #${side.runId}`,
        })));
        if (!isCurrent()) return;
        drawDistributions(card, 'compareDistribution', series.map((s, i) => ({ ...s, dash: i ? [7, 4] : [] })),
          { colorIndexes: [0, 1], emptyText: null });
      },
    };
  }
  const baselines = mode === 'baselines';
  const name = (chart) => (baselines ? { compareBandwidth: 'compareBaselines', compareLatency: 'compareLatencyBaselines' }[chart.name]
    : chart.name);
  const cards = new Map([BANDWIDTH, LATENCY].map((chart) => [chart, chartCard({
    name: name(chart), canvasId: chart.canvasId, title: chart.title, className: 'compare-chart',
  })]));
  cards.get(LATENCY).hidden = true;
  // a card shows once it has something to draw: no "Loading…" placeholder, no card whose points table says why not
  cards.forEach((card) => card.classList.add('no-data'));
  return {
    element: h('div', { class: 'compare-charts' }, [...cards.values()]),
    async draw(query, comparison, isCurrent) {
      const points = comparison.points ?? [];
      const show = wanted(points);
      cards.get(BANDWIDTH).hidden = !show.bandwidth;
      cards.get(LATENCY).hidden = !show.latency;
      const charts = [BANDWIDTH, LATENCY].filter((chart) => (chart === LATENCY ? show.latency : show.bandwidth));
      const { varying } = points.length > 0 ? splitParams(points) : { varying: [] };
      const drawn = await Promise.all(charts.map(async (chart) => {
        if (baselines) {
          return ['baseline', 'candidate'].map((side) => pointSeries(points, side, chart));
        }
        const curveQuery = chart.query(varying);
        const curves = await Promise.all([query.get('baseline'), query.get('candidate')].map((id) => getCurve(id, curveQuery)));
        return curves.map((curve) => toSeries(curve, chart.toUnit));
      }));
      if (!isCurrent()) return;
      charts.forEach((chart, i) => showChart(cards.get(chart), name(chart), { ...overlay(...drawn[i]), ...chart.axes }));
    },
  };
}

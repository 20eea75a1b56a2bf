// The overlays of a comparison, the baseline solid and the candidate dashed, one colour per series:
// two experiments' bandwidth-vs-message-size curves; two runs' cycle-time distributions; or, against
// baselines, each point's bandwidth on both sides.
import { getCurve } from './api.js';
import { chartCard, showChart } from './chart-card.js';
import { toSeries } from './curve-specs.js';
import { drawDistributions, loadDistributions } from './distribution.js';
import { bytesPerSecondToGbit, formatSeries } from './format.js';

const QUERY = { x: 'msg_size', y: 'bw_avg_bps', series: 'threads' };
const BANDWIDTH_AXES = {
  xKind: 'size', xTitle: 'Message size (bytes, log2)', yTitle: 'Bandwidth (Gbit/s)', unit: 'Gbit/s',
};

const byValue = (a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b)));

/** The chart card of a mode: experiments and baselines draw bandwidth, runs their distributions. */
export function compareChartCard(mode) {
  if (mode === 'runs') {
    return chartCard({ name: 'compareDistribution', canvasId: 'chart-compare-distribution', title: 'Cycle-time distribution', className: 'compare-chart' });
  }
  return chartCard({
    name: mode === 'baselines' ? 'compareBaselines' : 'compareBandwidth',
    canvasId: 'chart-compare-bw',
    title: 'Bandwidth vs message size',
    className: 'compare-chart',
  });
}

/** Both sides' series, each with its side in the label; series of equal value share a colour. */
function overlay(baselineSeries, candidateSeries) {
  const sides = [['baseline', baselineSeries, false], ['candidate', candidateSeries, true]]
    .map(([side, list, dashed]) => list.map((s) => ({ ...s, label: `${side} · ${s.label}`, dashed })));
  const values = [...new Set(sides.flat().map((s) => JSON.stringify(s.value)))]
    .sort((a, b) => byValue(JSON.parse(a), JSON.parse(b)));
  const series = sides.flat().sort((a, b) => values.indexOf(JSON.stringify(a.value))
    - values.indexOf(JSON.stringify(b.value)) || Number(a.dashed) - Number(b.dashed))
    .map((s) => ({ ...s, colorIndex: values.indexOf(JSON.stringify(s.value)) }));
  return { series, colorCount: values.length };
}

/** Draws the overlay of `mode` for `comparison` into `card`; experiments fetch their curves first. */
export async function drawCompareChart(card, mode, query, comparison, isCurrent) {
  if (mode === 'experiments') {
    const [before, after] = await Promise.all([getCurve(query.get('baseline'), QUERY), getCurve(query.get('candidate'), QUERY)]);
    if (!isCurrent()) return;
    showChart(card, 'compareBandwidth', { ...overlay(toSeries(before, bytesPerSecondToGbit), toSeries(after, bytesPerSecondToGbit)),
      ...BANDWIDTH_AXES }, 'Neither experiment has finished runs.');
  } else if (mode === 'runs') {
    const runs = [comparison.baseline, comparison.candidate];
    const series = await loadDistributions(runs.map((side, i) => ({ id: side.runId, label: `${i ? 'candidate' : 'baseline'} · run #${side.runId}` })));
    if (!isCurrent()) return;
    drawDistributions(card, 'compareDistribution', series.map((s, i) => ({ ...s, dash: i ? [7, 4] : [] })), { colorIndexes: [0, 1] });
  } else {
    const sides = ['baseline', 'candidate'].map((side) => pointSeries(comparison.points, side));
    showChart(card, 'compareBaselines', { ...overlay(...sides), ...BANDWIDTH_AXES }, 'No run has a baseline yet.');
  }
}

/** The points' bandwidth on one side as series by thread count against message size. */
function pointSeries(points, side) {
  const byThreads = new Map();
  for (const point of points) {
    const threads = point.params?.threads ?? 1;
    if (!byThreads.has(threads)) byThreads.set(threads, []);
    const stats = point[side];
    byThreads.get(threads).push({ x: point.params?.msg_size, y: bytesPerSecondToGbit(stats.bwAvgBps), n: stats.runs });
  }
  return [...byThreads.entries()].map(([value, list]) => ({
    value, label: formatSeries('threads', value), points: list.sort((a, b) => a.x - b.x),
  }));
}

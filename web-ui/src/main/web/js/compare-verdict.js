// The verdict of a compared point and the cells that show what it rests on: each side's run-level values
// (geometric mean, n, CV), the change with its confidence interval, the test's p-value and method, and the
// within-run shape (cycle-time percentiles of the pooled histograms) beside it.
import { h } from './dom.js';
import { formatChangePercent, formatNumber, formatPValue, nanosToMicros } from './format.js';
import { formatMetric, metricInfo } from './metrics.js';

/** regression | improvement | no-change | inconclusive | untested: the badge's class and the counts' key. */
export function verdictKind(verdict) {
  if (!verdict) return 'none';
  if (verdict.startsWith('inconclusive')) return 'inconclusive';
  if (verdict.startsWith('untested')) return 'untested';
  return { regression: 'regression', improvement: 'improvement', 'no change': 'no-change' }[verdict] ?? 'other';
}

export function verdictBadge(verdict, title = null) {
  return h('span', { class: `badge verdict verdict-${verdictKind(verdict)}`, title }, verdict ?? '–');
}

/** The judgment the verdict rests on: the point's metric's (the first judgment, by the API's order). */
export function verdictJudgment(point) {
  const judgments = point.judgments ?? [];
  return judgments.find((j) => j.metric === point.metric) ?? judgments[0] ?? null;
}

/** −55.2 with the sign as formatChangePercent writes it, no unit. */
function signed(percent) {
  if (percent === null || percent === undefined) return '–';
  return formatChangePercent(percent).replace(' %', '');
}

/** "−48.1 % [−55.2, −40.3]": the change of the geometric means and its confidence interval. */
export function changeText(judgment) {
  if (!judgment || judgment.changePercent === null || judgment.changePercent === undefined) return '–';
  const ci = judgment.ciLowPercent !== null && judgment.ciLowPercent !== undefined
    ? ` [${signed(judgment.ciLowPercent)}, ${signed(judgment.ciHighPercent)}]` : '';
  return `${formatChangePercent(judgment.changePercent)}${ci}`;
}

/** Red for a regression, green for an improvement: the verdict decides, not the size of the change. */
export function changeCell(judgment, verdict, confidence) {
  const tone = { regression: ' worse', improvement: ' better' }[verdictKind(verdict)] ?? '';
  const level = confidence ? `${formatNumber(confidence * 100)} % ` : '';
  return h('td', {
    class: `num change${tone}`,
    title: `candidate ÷ baseline − 1 of the geometric means over runs; in brackets its ${level}confidence interval`,
  }, changeText(judgment));
}

/** One side's run-level values: geometric mean, then n and the run-to-run CV; the title lists every run's value. */
export function sideCell(metric, stats) {
  if (!stats) return h('td', { class: 'num' }, '–');
  const values = (stats.values ?? []).map((v) => formatMetric(metric, v)).join(', ');
  const cv = stats.cvPercent !== null && stats.cvPercent !== undefined ? ` · CV ${formatNumber(stats.cvPercent, 2)} %` : '';
  return h('td', { class: 'num side-stats', title: values ? `per run: ${values} ${metricInfo(metric).unit}` : null },
    formatMetric(metric, stats.geomean), h('span', { class: 'sub' }, `n = ${stats.n}${cv}`));
}

/** How the p-value was reached: a test over the runs of both sides, or the fingerprint's history as the noise. */
function methodText(judgment) {
  if (judgment?.method === 'welch-log') return ['Welch over runs', "Welch's t-test on the log of each run's value"];
  if (judgment?.method === 'welch-log+drift') {
    return [`Welch + drift of ${judgment.noiseExperiments ?? '?'} experiments`,
      `Welch's t-test on the log of each run's value, with how far the fingerprint's earlier experiments drift apart `
      + `(${judgment.driftPercent === undefined ? '?' : judgment.driftPercent.toFixed(1)} %) added to each side`];
  }
  if (judgment?.method === 'history') {
    return [`history of ${judgment.noiseRuns ?? '?'} runs`, "the spread of the baseline fingerprint's earlier runs as the noise model"];
  }
  return [judgment?.method ?? null, null];
}

/** The p-value of the test over runs, and below it the method that gave it; "–" without a test. */
export function pValueCell(judgment) {
  const [method, title] = methodText(judgment);
  return h('td', { class: 'num p-value', title },
    formatPValue(judgment?.pValue), method && h('span', { class: 'sub method' }, method));
}

/** A side's within-run shape: p50 / p99 / p99.9 of its pooled cycle-time histogram, µs. */
export function shapeCell(stats) {
  const shape = stats?.shape;
  const text = shape ? [shape.p50Ns, shape.p99Ns, shape.p999Ns].map((ns) => formatNumber(nanosToMicros(ns))).join(' / ') : '–';
  return h('td', { class: 'num shape', title: 'cycle time p50 / p99 / p99.9 of the runs\' pooled histograms (µs): the '
    + 'distribution\'s shape, not evidence for the verdict' }, text);
}

/** The other metrics' verdicts, for the verdict's title: "msg_rate: no change (+1.2 %)". */
export function otherJudgments(point, judgment) {
  const others = (point.judgments ?? []).filter((j) => j !== judgment);
  if (others.length === 0) return null;
  return others.map((j) => `${metricInfo(j.metric).label}: ${j.verdict ?? '–'} (${changeText(j)})`).join('\n');
}

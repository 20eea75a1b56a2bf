// The point-by-point table of a comparison, and the points only one side has. Each row: the parameters
// that vary between points (those compared across highlighted, baseline → candidate), the verdict's metric
// on both sides over runs, the change with its confidence interval, p-value and method, the within-run
// shape of each side, the verdict, and the fingerprint's history.
import {
  changeCell, otherJudgments, pValueCell, shapeCell, sideCell, verdictBadge, verdictJudgment, verdictKind,
} from './compare-verdict.js';
import { h } from './dom.js';
import { fingerprintHash } from './fingerprint-history.js';
import { formatParam } from './format.js';
import { metricTitle } from './metrics.js';
import { fixedParamsLine, orderParams, paramList, splitParams } from './params.js';

function compareValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

function paramCell(point, name) {
  const differs = (point.differing ?? []).find((d) => d.param === name);
  if (differs) {
    return h('td', { class: 'num differs', dataset: { param: name } },
      `${formatParam(name, differs.baseline)} → ${formatParam(name, differs.candidate)}`);
  }
  return h('td', { class: 'num' }, formatParam(name, point.params?.[name]));
}

function fingerprintCell(point, shown) {
  if (!shown) return null;
  if (!point.fingerprint) return h('td', {}, '');
  return h('td', {}, h('a', {
    class: 'fingerprint-history', href: fingerprintHash(point.fingerprint),
    title: `fingerprint ${point.fingerprint}: its runs over time`,
  }, 'history'));
}

function pointRow(point, columns, { baselineRuns, mixedMetrics, confidence, fingerprints }) {
  const judgment = verdictJudgment(point);
  const metric = judgment?.metric ?? point.metric;
  return h('tr', { dataset: { verdict: point.verdict, verdictKind: verdictKind(point.verdict), fingerprint: point.fingerprint } },
    columns.map((name) => paramCell(point, name)),
    baselineRuns && h('td', { class: 'num' }, h('a', { href: `#/runs/${point.baselineRunId}`, title: `fingerprint ${point.fingerprint}` },
      `#${point.baselineRunId}`)),
    mixedMetrics && h('td', { class: 'metric' }, metricTitle(metric, judgment?.unit)),
    sideCell(metric, judgment?.baseline),
    sideCell(metric, judgment?.candidate),
    changeCell(judgment, point.verdict, confidence),
    pValueCell(judgment),
    shapeCell(point.baseline),
    shapeCell(point.candidate),
    h('td', { class: 'verdict-cell' }, verdictBadge(point.verdict, otherJudgments(point, judgment))),
    fingerprintCell(point, fingerprints));
}

const COUNTED = ['regression', 'improvement', 'no change', 'inconclusive', 'untested'];

function verdictCounts(points) {
  const counts = new Map(COUNTED.slice(0, 3).map((verdict) => [verdict, 0]));
  points.forEach((p) => {
    const kind = verdictKind(p.verdict);
    const key = COUNTED.find((verdict) => verdictKind(verdict) === kind) ?? p.verdict;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  });
  return h('p', { class: 'verdict-counts' },
    [...counts].map(([verdict, count]) => h('span', {}, verdictBadge(verdict), ` ${count}`)));
}

/** The parameters of an unpaired point, less those every paired point shares. */
function ownParams(params, fixed) {
  const shared = new Map(fixed.map(([name, value]) => [name, JSON.stringify(value ?? null)]));
  const all = orderParams(Object.keys(params)).map((name) => [name, params[name]]);
  const own = all.filter(([name, value]) => shared.get(name) !== JSON.stringify(value ?? null));
  return own.length > 0 ? own : all;
}

function unpairedList(title, id, list, fixed) {
  if (!list?.length) return null;
  const rows = list.map((params) => ownParams(params, fixed)).sort((a, b) => {
    for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
      const order = compareValues(a[i][1], b[i][1]);
      if (order !== 0) return order;
    }
    return a.length - b.length;
  });
  return h('div', { class: 'unpaired', id },
    h('h3', {}, `${title} (${list.length})`),
    h('ul', {}, rows.map((entries) => h('li', {}, paramList(entries)))));
}

/** Against baselines: the runs whose fingerprint has no baseline yet. */
export function withoutBaselineList(list) {
  if (!list?.length) return null;
  return h('div', { class: 'unpaired', id: 'without-baseline' },
    h('h3', {}, `No baseline for their fingerprint (${list.length})`),
    h('ul', {}, list.map((item) => h('li', { title: `fingerprint ${item.fingerprint}` },
      paramList(orderParams(Object.keys(item.params)).map((name) => [name, item.params[name]])), ' — ',
      item.runIds.map((id, i) => [i ? ', ' : '', h('a', { href: `#/runs/${id}` }, `run #${id}`)])))));
}

/** The columns: parameters that vary between points, then those compared across (differing between the sides). */
function paramColumns(points) {
  const { varying, fixed } = splitParams(points);
  const across = orderParams(new Set(points.flatMap((p) => (p.differing ?? []).map((d) => d.param))));
  return {
    columns: [...varying.filter((name) => !across.includes(name)), ...across],
    across,
    fixed: fixed.filter(([name]) => !across.includes(name)),
  };
}

function headerRows(points, columns, across, { baselineRuns, mixedMetrics, confidence, fingerprints }) {
  const metrics = [...new Set(points.map((p) => verdictJudgment(p)?.metric ?? p.metric))];
  const unit = verdictJudgment(points[0])?.unit;
  const group = (span, text, title) => h('th', { colspan: span, class: 'group', title }, text);
  const sub = (text, title) => h('th', { class: 'num', title }, text);
  const leading = columns.length + (baselineRuns ? 1 : 0);
  const level = confidence ? `${Math.round(confidence * 1000) / 10} % CI` : 'CI';
  return h('thead', {},
    h('tr', {},
      leading > 0 && h('th', { colspan: leading }, ''),
      group(mixedMetrics ? 5 : 4, mixedMetrics ? "The verdict's metric, over runs" : `${metricTitle(metrics[0], unit)}, over runs`,
        'geometric mean of each run\'s value, n runs, run-to-run CV'),
      group(2, 'Shape: cycle p50 / p99 / p99.9 (µs)', 'within-run distribution of each side (pooled histograms)'),
      h('th', { colspan: fingerprints ? 2 : 1 }, '')),
    h('tr', {},
      columns.map((name) => h('th', {
        class: `num${across.includes(name) ? ' differs' : ''}`,
        title: across.includes(name) ? 'compared across: baseline → candidate' : null,
      }, name)),
      baselineRuns && sub('baseline run'),
      mixedMetrics && h('th', {}, 'metric'),
      sub('baseline'), sub('candidate'), sub(`change [${level}]`), sub('p-value, method'),
      sub('baseline'), sub('candidate'),
      h('th', {}, 'verdict'), fingerprints && h('th', {}, 'fingerprint')));
}

/**
 * The table #compare-table, one row per paired point, and the unpaired points below it.
 * `baselineRuns` adds the column of each point's baseline run (comparisons against baselines).
 */
export function comparisonTable(comparison, { baselineRuns = false } = {}) {
  const points = comparison.points ?? [];
  const { columns, across, fixed } = points.length > 0 ? paramColumns(points) : { columns: [], across: [], fixed: [] };
  const sorted = [...points].sort((a, b) => {
    for (const name of columns) {
      const order = compareValues(a.params?.[name], b.params?.[name]);
      if (order !== 0) return order;
    }
    return 0;
  });
  const mixedMetrics = new Set(points.map((p) => verdictJudgment(p)?.metric ?? p.metric)).size > 1;
  // a point names its fingerprint where it is one (against baselines): then its history is a link away
  const fingerprints = points.some((p) => p.fingerprint);
  const options = { baselineRuns, mixedMetrics, confidence: comparison.confidence, fingerprints };
  return h('div', {},
    points.length === 0
      ? h('p', { class: 'empty' }, comparison.withoutBaseline
        ? 'No point has a baseline: mark a run of the same fingerprint as its baseline first.'
        : 'No paired points: the two experiments share no configuration with finished runs.')
      : [
        verdictCounts(points),
        fixedParamsLine('Every point', fixed),
        h('div', { class: 'table-scroll' },
          h('table', { id: 'compare-table', class: 'grid compare' },
            headerRows(points, columns, across, options),
            h('tbody', {}, sorted.map((point) => pointRow(point, columns, options))))),
      ],
    unpairedList('Only in the baseline', 'baseline-only', comparison.baselineOnly, fixed),
    unpairedList('Only in the candidate', 'candidate-only', comparison.candidateOnly, fixed));
}

// The point-by-point table of a comparison, and the points only one side has.
import { h } from './dom.js';
import {
  bytesPerSecondToGbit, formatChangePercent, formatNumber, formatParam, formatPValue, nanosToMicros,
} from './format.js';
import { fixedParamsLine, orderParams, paramList, splitParams } from './params.js';

const VERDICT_CLASS = { regression: 'regression', improvement: 'improvement', 'no change': 'no-change' };

export function verdictBadge(verdict) {
  return h('span', { class: `badge verdict-${VERDICT_CLASS[verdict] ?? 'no-change'}` }, verdict ?? '–');
}

/** Red or green once a change passes the threshold; `higherIsBetter` says which way is good. */
function changeCell(percent, threshold, higherIsBetter) {
  let tone = '';
  if (Math.abs(percent) >= threshold) tone = (percent > 0) === higherIsBetter ? ' better' : ' worse';
  return h('td', { class: `num change${tone}` }, formatChangePercent(percent));
}

function statsCell(value, stats) {
  const title = stats ? `${stats.runs} ${stats.runs === 1 ? 'run' : 'runs'}, ${stats.cycles} cycles` : null;
  return h('td', { class: 'num', title }, formatNumber(value));
}

function compareValues(a, b) {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

function pointRow(point, varying, threshold, baselineRuns) {
  const { baseline: before, candidate: after } = point;
  return h('tr', { dataset: { verdict: point.verdict, fingerprint: point.fingerprint } },
    varying.map((name) => h('td', { class: 'num' }, formatParam(name, point.params?.[name]))),
    baselineRuns && h('td', { class: 'num' }, h('a', { href: `#/runs/${point.baselineRunId}`, title: `fingerprint ${point.fingerprint}` },
      `#${point.baselineRunId}`)),
    statsCell(bytesPerSecondToGbit(before?.bwAvgBps), before),
    statsCell(bytesPerSecondToGbit(after?.bwAvgBps), after),
    changeCell(point.bwChangePercent, threshold, true),
    statsCell(nanosToMicros(before?.cycleMedianNs), before),
    statsCell(nanosToMicros(after?.cycleMedianNs), after),
    changeCell(point.cycleMedianChangePercent, threshold, false),
    h('td', { class: 'num' }, formatPValue(point.pValue)),
    h('td', {}, verdictBadge(point.verdict)));
}

function verdictCounts(points) {
  const counts = { regression: 0, improvement: 0, 'no change': 0 };
  points.forEach((p) => { counts[p.verdict] = (counts[p.verdict] ?? 0) + 1; });
  return h('p', { class: 'verdict-counts' },
    Object.entries(counts).map(([verdict, count]) => h('span', {}, verdictBadge(verdict), ` ${count}`)));
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

/**
 * The table #compare-table, one row per paired point, and the unpaired points below it.
 * `baselineRuns` adds the column of each point's baseline run (comparisons against baselines).
 */
export function comparisonTable(comparison, { baselineRuns = false } = {}) {
  const points = comparison.points ?? [];
  const { varying, fixed } = points.length > 0 ? splitParams(points) : { varying: [], fixed: [] };
  const sorted = [...points].sort((a, b) => {
    for (const name of varying) {
      const order = compareValues(a.params?.[name], b.params?.[name]);
      if (order !== 0) return order;
    }
    return 0;
  });
  const threshold = comparison.thresholdPercent ?? 5;
  const group = (text) => h('th', { colspan: 3, class: 'group' }, text);
  const sub = (text) => h('th', { class: 'num' }, text);
  return h('div', {},
    points.length === 0
      ? h('p', { class: 'empty' }, comparison.withoutBaseline
        ? 'No point has a baseline: mark a run of the same fingerprint as its baseline first.'
        : 'No paired points: the two experiments share no parameters with finished runs.')
      : [
        verdictCounts(points),
        fixedParamsLine('Every point', fixed),
        h('div', { class: 'table-scroll' },
          h('table', { id: 'compare-table', class: 'grid compare' },
            h('thead', {},
              h('tr', {},
                varying.length + (baselineRuns ? 1 : 0) > 0 && h('th', { colspan: varying.length + (baselineRuns ? 1 : 0) }, ''),
                group('BW avg (Gbit/s)'), group('Cycle median (µs)'), h('th', { colspan: 2 }, '')),
              h('tr', {},
                varying.map((name) => h('th', { class: 'num' }, name)),
                baselineRuns && sub('baseline run'),
                sub('baseline'), sub('candidate'), sub('change'),
                sub('baseline'), sub('candidate'), sub('change'),
                sub('p-value'), h('th', {}, 'verdict'))),
            h('tbody', {}, sorted.map((point) => pointRow(point, varying, threshold, baselineRuns))))),
      ],
    unpairedList('Only in the baseline', 'baseline-only', comparison.baselineOnly, fixed),
    unpairedList('Only in the candidate', 'candidate-only', comparison.candidateOnly, fixed));
}

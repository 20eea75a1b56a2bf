// The NIC counters whose deltas differ between the two sides of a comparison, point by point
// (ComparisonPoint.counterChanges): retransmission and error counters that moved come first, marked.
import { h } from './dom.js';
import { formatNumber, formatParam } from './format.js';
import { splitParams } from './params.js';

function delta(value) {
  return value === null || value === undefined ? 'not read' : formatNumber(value);
}

/** The table #compare-counters, or null when no point has a counter that differs. */
export function counterChangesTable(comparison) {
  const points = (comparison.points ?? []).filter((p) => p.counterChanges?.length);
  if (points.length === 0) return null;
  const { varying } = splitParams(comparison.points);
  const rows = points.flatMap((point) => point.counterChanges.map((change) => ({ point, change })));
  const warnings = rows.filter(({ change }) => change.warning).length;
  return h('div', { id: 'compare-counters-section' },
    h('h3', {}, 'NIC counters that differ (Δ over a run, mean of each side\'s runs)'),
    warnings > 0 && h('div', { class: 'warning-box', role: 'alert', id: 'compare-counter-warnings' },
      h('strong', {}, `${warnings} retransmission or error ${warnings === 1 ? 'counter differs' : 'counters differ'}: `
        + 'a side recovered from lost or refused packets, which its numbers include.')),
    h('div', { class: 'table-scroll' }, h('table', { id: 'compare-counters', class: 'grid' },
      h('thead', {}, h('tr', {}, varying.map((name) => h('th', { class: 'num' }, name)),
        h('th', {}, 'side'), h('th', {}, 'counter'), h('th', { class: 'num' }, 'baseline Δ'),
        h('th', { class: 'num' }, 'candidate Δ'))),
      h('tbody', {}, rows.map(({ point, change }) => h('tr', { dataset: { counter: change.counter, side: change.side } },
        varying.map((name) => h('td', { class: 'num' }, formatParam(name, point.params?.[name]))),
        h('td', {}, change.side), h('td', { class: change.warning ? 'failed' : '' }, change.counter),
        h('td', { class: 'num' }, delta(change.baseline)), h('td', { class: 'num' }, delta(change.candidate))))))));
}

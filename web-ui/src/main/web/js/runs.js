// The table of one experiment's runs. Parameters that differ between runs get a column each;
// those shared by every run are listed once above the table.
import { baselineToggle } from './baseline.js';
import { h, statusBadge } from './dom.js';
import {
  bytesPerSecondToGbit, formatNumber, formatParam, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';
import { fixedParamsLine, splitParams } from './params.js';

const num = (value, digits = 3) => h('td', { class: 'num' }, formatNumber(value, digits));

/** Try n of a point, what replaced a failed try, and what a partial run kept. */
function tryNote(run) {
  const notes = [];
  if (run.attempt > 1) notes.push(`try ${run.attempt}`);
  if (run.supersededBy != null) {
    notes.push(h('a', { href: `#/runs/${run.supersededBy}`, title: 'This try failed; the point was run again' },
      `retried as #${run.supersededBy}`));
  }
  if (run.partial) notes.push(`partial: ${Number(run.cyclesStored).toLocaleString('en')} cycles kept`);
  if (notes.length === 0) return null;
  return h('span', { class: 'try-note' }, notes.flatMap((n, i) => (i === 0 ? [' ', n] : [' · ', n])));
}

function runRow(run, varying, onChange) {
  const summary = run.summary;
  const cycles = summary?.cycle_ns;
  return h('tr', { id: `run-${run.id}`, dataset: { status: run.status, baseline: String(run.baseline) } },
    h('td', { class: 'num' }, h('a', { href: `#/runs/${run.id}`, title: `Run #${run.id}: live view, timeline, distribution` },
      run.index)),
    h('td', { class: 'num' }, run.repeat),
    varying.map((name) => h('td', { class: 'num' }, formatParam(name, run.params?.[name]))),
    h('td', {}, statusBadge(run.status), tryNote(run)),
    h('td', {}, run.agentId ?? '–'),
    num(bytesPerSecondToGbit(summary?.bw_avg_bps)),
    num(messagesPerSecondToMillions(summary?.msg_rate)),
    num(nanosToMicros(cycles?.median)),
    num(nanosToMicros(cycles?.p99)),
    h('td', { class: 'actions' }, baselineToggle(run, onChange)),
    h('td', { class: 'error-text' }, run.error ?? ''));
}

/** The runs, each linking to its own page; `onChange` refreshes after a baseline is (un)marked. */
export function runsTable(runs, onChange) {
  // the tries of one point together, in the order they ran
  const sorted = [...runs].sort((a, b) => a.index - b.index || a.repeat - b.repeat || a.id - b.id);
  if (sorted.length === 0) return h('p', { class: 'empty' }, 'No runs.');
  const { varying, fixed } = splitParams(sorted);
  return h('div', {},
    fixedParamsLine('Every run', fixed),
    h('div', { class: 'table-scroll' },
      h('table', { id: 'runs', class: 'grid' },
        h('thead', {}, h('tr', {},
          h('th', { class: 'num' }, 'Run'), h('th', { class: 'num' }, 'Repeat'),
          varying.map((name) => h('th', { class: 'num' }, name)),
          h('th', {}, 'Status'), h('th', {}, 'Agent'),
          h('th', { class: 'num' }, 'BW avg (Gbit/s)'), h('th', { class: 'num' }, 'Msg rate (Mmsg/s)'),
          h('th', { class: 'num' }, 'Cycle median (µs)'), h('th', { class: 'num' }, 'Cycle p99 (µs)'),
          h('th', {}, 'Baseline'), h('th', {}, 'Error'))),
        h('tbody', {}, sorted.map((run) => runRow(run, varying, onChange))))));
}

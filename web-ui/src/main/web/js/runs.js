// The table of one experiment's runs. Parameters that differ between runs get a column each;
// those shared by every run are listed once above the table. Its numbers are the runs' kind: a latency
// run's latency (t_min, t_typical, p99, p99.9, t_max), a bandwidth run's bandwidth, message rate and cycle
// times; an experiment of both kinds has both. A column no run has a value in is left out once no run is
// still to come (a perftest bandwidth import measured no cycle times). With expect rules, each run's verdict.
import { baselineToggle } from './baseline.js';
import { countsIos, isLatencyRun } from './curve-specs.js';
import { ACTIVE_STATUSES, h, statusBadge } from './dom.js';
import { expectationCell } from './expectations.js';
import {
  bytesPerSecondToGbit, formatNumber, formatParam, iopsToThousands, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';
import { fixedParamsLine, splitParams } from './params.js';

const num = (value, digits = 3) => h('td', { class: 'num' }, formatNumber(value, digits));

/** A bandwidth run's numbers (the engine's summary keys, an import's too). */
const BANDWIDTH_COLUMNS = [
  { label: 'BW avg (Gbit/s)', value: (s) => bytesPerSecondToGbit(s?.bw_avg_bps) },
  { label: 'Msg rate (Mmsg/s)', value: (s) => messagesPerSecondToMillions(s?.msg_rate) },
  { label: 'Cycle median (µs)', value: (s) => nanosToMicros(s?.cycle_ns?.median) },
  { label: 'Cycle p99 (µs)', value: (s) => nanosToMicros(s?.cycle_ns?.p99) },
];

/** A latency run's numbers: its summary's latency_us, under perftest's names (µs). */
const LATENCY_COLUMNS = [['min', 't_min'], ['typical', 't_typical'], ['p99', 'p99'], ['p999', 'p99.9'], ['max', 't_max']]
  .map(([key, label]) => ({ label: `${label} (µs)`, value: (s) => s?.latency_us?.[key] }));

const present = (value) => value !== null && value !== undefined && !Number.isNaN(value);

/** An nvmeof run's numbers (fio: a cycle is one I/O). */
const IO_COLUMNS = [
  { label: 'BW avg (Gbit/s)', value: (s) => bytesPerSecondToGbit(s?.bw_avg_bps) },
  { label: 'IOPS (k)', value: (s) => iopsToThousands(s?.msg_rate) },
  { label: 'I/O time median (µs)', value: (s) => nanosToMicros(s?.cycle_ns?.median) },
  { label: 'I/O time p99 (µs)', value: (s) => nanosToMicros(s?.cycle_ns?.p99) },
];

/** The number columns for these runs: by their kind, less those no run fills once none is still to come. */
function numberColumns(runs) {
  const latency = runs.some(isLatencyRun);
  const ios = runs.length > 0 && runs.every(countsIos); // an experiment of fio runs only
  const bandwidth = !ios && (runs.length === 0 || runs.some((run) => !isLatencyRun(run)));
  const columns = [...(ios ? IO_COLUMNS : []), ...(bandwidth ? BANDWIDTH_COLUMNS : []), ...(latency ? LATENCY_COLUMNS : [])];
  if (runs.some((run) => ACTIVE_STATUSES.has(run.status))) return columns;
  return columns.filter((column) => runs.some((run) => present(column.value(run.summary))));
}

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

function runRow(run, varying, columns, agents, expects, onChange) {
  return h('tr', { id: `run-${run.id}`, dataset: { status: run.status, baseline: String(run.baseline) } },
    h('td', { class: 'num' }, h('a', { href: `#/runs/${run.id}`, title: `Run #${run.id}: live view, timeline, distribution` },
      `#${run.id}`)),
    h('td', { class: 'num' }, run.repeat),
    varying.map((name) => h('td', { class: 'num' }, formatParam(name, run.params?.[name]))),
    h('td', {}, statusBadge(run.status), tryNote(run)),
    expects && expectationCell(run),
    agents && h('td', {}, run.agentId ?? '–'),
    columns.map((column) => num(column.value(run.summary))),
    h('td', { class: 'actions' }, baselineToggle(run, onChange)),
    h('td', { class: 'error-text' }, run.error ?? ''));
}

/** The runs, each linking to its own page; `onChange` refreshes after a baseline is (un)marked. */
export function runsTable(runs, onChange) {
  // the tries of one point together, in the order they ran
  const sorted = [...runs].sort((a, b) => a.index - b.index || a.repeat - b.repeat || a.id - b.id);
  if (sorted.length === 0) return h('p', { class: 'empty' }, 'No runs.');
  const { varying, fixed } = splitParams(sorted);
  const columns = numberColumns(sorted);
  // an import ran on no agent of qplab's
  const agents = sorted.some((run) => run.agentId || ACTIVE_STATUSES.has(run.status));
  const expects = sorted.some((run) => run.expectation); // the matrix's expect rules: each run's verdict
  return h('div', {},
    fixedParamsLine('Every run', fixed),
    h('div', { class: 'table-scroll' },
      h('table', { id: 'runs', class: 'grid' },
        h('thead', {}, h('tr', {},
          h('th', { class: 'num' }, 'Run'), h('th', { class: 'num' }, 'Repeat'),
          varying.map((name) => h('th', { class: 'num' }, name)),
          h('th', {}, 'Status'), expects && h('th', { title: 'How the run met the matrix\'s expect rules' }, 'Expect'),
          agents && h('th', {}, 'Agent'),
          columns.map((column) => h('th', { class: 'num' }, column.label)),
          h('th', {}, 'Baseline'), h('th', {}, 'Error'))),
        h('tbody', {}, sorted.map((run) => runRow(run, varying, columns, agents, expects, onChange))))));
}

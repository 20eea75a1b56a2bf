// A run's cost and what the NIC counted, per side: the engine's CPU over its measured span and the
// host's, the counters that moved (the engine's summary keys "cpu", "counters", "warnings"; qpb.h),
// and a warning when retransmission or error counters moved.
import { h } from './dom.js';
import { formatNumber } from './format.js';

/** The run's sides that have a summary: a loopback run has one, a pair run a client and a server. */
function sides(run) {
  return [
    [run.serverSummary ? 'client' : 'run', run.summary],
    ['server', run.serverSummary],
  ].filter(([, summary]) => summary);
}

function seconds(nanos) {
  return nanos === null || nanos === undefined ? '–' : formatNumber(nanos / 1e9);
}

function percent(value) {
  return value === null || value === undefined ? '–' : formatNumber(value);
}

function cpuTable(list) {
  const withCpu = list.filter(([, summary]) => summary.cpu);
  if (withCpu.length === 0) return h('p', { class: 'empty' }, 'No CPU figures: the engine that ran it did not measure them.');
  return h('div', { class: 'table-scroll' }, h('table', { id: 'run-cpu', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, 'side'),
      h('th', { class: 'num', title: 'From the first measured cycle to the last thread\'s end' }, 'span (s)'),
      h('th', { class: 'num' }, 'engine user (s)'), h('th', { class: 'num' }, 'engine sys (s)'),
      h('th', { class: 'num', title: '100 = one CPU busy for the whole span' }, 'engine (% of one CPU)'),
      h('th', { class: 'num' }, 'host CPUs'),
      h('th', { class: 'num', title: 'All CPUs of the host, from /proc/stat' }, 'host util (%)'),
      h('th', { class: 'num' }, 'host user (%)'), h('th', { class: 'num' }, 'host sys (%)'),
      h('th', { class: 'num', title: 'perftest --cpu_util: user / (user + idle) ticks' }, 'perftest CPU_Util (%)'))),
    h('tbody', {}, withCpu.map(([side, { cpu }]) => h('tr', { dataset: { side } },
      h('td', {}, side), h('td', { class: 'num' }, seconds(cpu.span_ns)),
      h('td', { class: 'num' }, seconds(cpu.engine_user_ns)), h('td', { class: 'num' }, seconds(cpu.engine_sys_ns)),
      h('td', { class: 'num' }, percent(cpu.engine_util_pct)), h('td', { class: 'num' }, cpu.host_cpus ?? '–'),
      h('td', { class: 'num' }, percent(cpu.host_util_pct)), h('td', { class: 'num' }, percent(cpu.host_user_pct)),
      h('td', { class: 'num' }, percent(cpu.host_sys_pct)), h('td', { class: 'num' }, percent(cpu.perftest_util_pct)))))));
}

function source(counters) {
  if (counters.source === 'sysfs') return `${counters.device} port ${counters.port}, sysfs`;
  return `${counters.source}, host-wide`;
}

/** One row per counter that moved on any side; a column per side. */
function countersTable(list) {
  const withCounters = list.filter(([, summary]) => summary.counters);
  if (withCounters.length === 0) return h('p', { class: 'empty' }, 'No counters were read for this run.');
  const names = new Set();
  withCounters.forEach(([, { counters }]) => Object.entries(counters.deltas ?? {})
    .filter(([, delta]) => delta !== 0).forEach(([name]) => names.add(name)));
  const warned = new Set(withCounters.flatMap(([, summary]) => (summary.warnings ?? []).map((w) => w.split(' ')[0])));
  const unmoved = withCounters.map(([side, { counters }]) =>
    `${side}: ${Object.values(counters.deltas ?? {}).filter((d) => d === 0).length} did not move`
    + (counters.unreadable?.length ? `, ${counters.unreadable.length} unreadable (${counters.unreadable.join(', ')})` : '')
    + (counters.error ? ` — ${counters.error}` : ''));
  return h('div', {},
    h('p', { class: 'fixed-params' }, 'Counters: ', withCounters.map(([side, { counters }], i) =>
      [i ? '; ' : '', `${side} ${source(counters)}`])),
    names.size === 0 ? h('p', { class: 'empty', id: 'run-counters-none' }, 'No counter moved.')
      : h('div', { class: 'table-scroll' }, h('table', { id: 'run-counters', class: 'grid' },
        h('thead', {}, h('tr', {}, h('th', {}, 'counter'),
          withCounters.map(([side]) => h('th', { class: 'num' }, `${side} Δ`)))),
        h('tbody', {}, [...names].sort().map((name) => h('tr', { dataset: { counter: name } },
          h('td', { class: warned.has(name) ? 'failed' : '' }, name),
          withCounters.map(([, { counters }]) => h('td', { class: 'num' }, counters.deltas?.[name] ?? '–'))))))),
    h('p', { class: 'muted' }, unmoved.join('; ')));
}

/** The warning box for the top of the run page, or null when no retransmission or error counter moved. */
export function runWarnings(run) {
  const items = sides(run).flatMap(([side, summary]) => (summary.warnings ?? []).map((warning) => [side, warning]));
  if (items.length === 0) return null;
  return h('div', { id: 'run-warnings', class: 'warning-box', role: 'alert' },
    h('strong', {}, 'Retransmission or error counters moved during this run: its numbers include recovery from them '
      + '(see CPU and NIC counters below).'),
    h('ul', {}, items.map(([side, warning]) => h('li', { dataset: { side } }, `${side}: `, h('code', {}, warning)))));
}

/** The section's content for `run`; a placeholder until it has a summary. */
export function runCost(run) {
  const list = sides(run);
  if (list.length === 0) return h('p', { class: 'empty' }, 'Measured when the run ends.');
  return h('div', { id: 'run-cost' }, h('h3', {}, 'CPU'), cpuTable(list),
    h('h3', {}, 'NIC counters'), countersTable(list));
}

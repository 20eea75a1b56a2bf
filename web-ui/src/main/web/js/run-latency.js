// The latency table of a latency run (mode latency, or an imported perftest *_lat): perftest's columns
// in µs, for all threads and each thread (with several threads each runs its own ping-pong at once).
import { h } from './dom.js';
import { formatNumber } from './format.js';

/** [key in the summary's latency_us (an imported perftest *_lat run's too), column label]. */
const LATENCY_FIELDS = [
  ['min', 't_min'], ['typical', 't_typical'], ['avg', 't_avg'], ['stdev', 't_stdev'], ['p99', 'p99'],
  ['p999', 'p99.9'], ['max', 't_max'],
];

/** The table, or null for a run without latencies (a bandwidth run's cycle times are no latency). */
export function latencyTable(summary) {
  const all = summary?.latency_us;
  if (!all) return null;
  const rows = [{ label: 'all threads', latency: all }, ...(summary.per_thread ?? [])
    .filter((t) => t.latency_us).map((t) => ({ label: `thread ${t.thread}`, latency: t.latency_us }))];
  return h('div', { class: 'run-latency' },
    h('h3', {}, 'Latency (µs; half the round trip for send and write, as perftest reports it)'),
    h('div', { class: 'table-scroll' }, h('table', { id: 'run-latency', class: 'grid' },
      h('thead', {}, h('tr', {}, h('th', {}, ''),
        LATENCY_FIELDS.map(([, label]) => h('th', { class: 'num' }, `${label} (µs)`)))),
      h('tbody', {}, rows.map((row) => h('tr', {}, h('td', {}, row.label),
        LATENCY_FIELDS.map(([key]) => h('td', { class: 'num' }, formatNumber(row.latency?.[key])))))))));
}

// The latency table of a latency run (mode latency, or an imported perftest *_lat): perftest's columns
// in µs, for all threads and each thread (with several threads each runs its own ping-pong at once).
import { h } from './dom.js';
import { formatNumber } from './format.js';

/** [key in the summary's latency_us, column label, key of an imported perftest run's summary]. */
const LATENCY_FIELDS = [
  ['min', 't_min', 't_min_us'], ['typical', 't_typical', 't_typical_us'], ['avg', 't_avg', 't_avg_us'],
  ['stdev', 't_stdev', 't_stdev_us'], ['p99', 'p99', 't_p99_us'], ['p999', 'p99.9', 't_p999_us'],
  ['max', 't_max', 't_max_us'],
];

/** The summary's latency_us, or an imported perftest latency run's t_*_us under the same names; null if neither. */
function latencyOf(summary) {
  if (summary?.latency_us) return summary.latency_us;
  if (typeof summary?.t_typical_us !== 'number') return null;
  return Object.fromEntries(LATENCY_FIELDS.map(([key, , imported]) => [key, summary[imported]]));
}

/** The table, or null for a run without latencies (a bandwidth run's cycle times are no latency). */
export function latencyTable(summary) {
  const all = latencyOf(summary);
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

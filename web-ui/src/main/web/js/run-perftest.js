// What perftest printed for an imported run: its result line as perftest's columns name it, in perftest's own
// units and digits (the summary's perftest block; the run's numbers above are the same in qplab's units).
import { h } from './dom.js';

/** The import's names of perftest's result columns → perftest's headers ({unit}: the BW columns' unit). */
const COLUMNS = [
  ['bytes', '#bytes'], ['iterations', '#iterations'], ['bw_peak', 'BW peak[{unit}]'], ['bw_average', 'BW average[{unit}]'],
  ['msg_rate_mpps', 'MsgRate[Mpps]'], ['t_min_us', 't_min[usec]'], ['t_max_us', 't_max[usec]'],
  ['t_typical_us', 't_typical[usec]'], ['t_avg_us', 't_avg[usec]'], ['t_stdev_us', 't_stdev[usec]'],
  ['t_p99_us', '99% percentile[usec]'], ['t_p999_us', '99.9% percentile[usec]'],
];

/** The table of an imported run's perftest line, or null for a run qplab measured. */
export function perftestTable(summary) {
  const perftest = summary?.perftest;
  if (!perftest?.results) return null;
  const columns = COLUMNS.filter(([key]) => perftest.results[key] !== undefined && perftest.results[key] !== null);
  const where = [perftest.tool, perftest.line ? `line ${perftest.line} of the imported file` : null].filter(Boolean);
  return h('div', { class: 'run-perftest' },
    h('h3', {}, `As perftest printed it (${where.join(', ')})`),
    h('div', { class: 'table-scroll' }, h('table', { id: 'run-perftest', class: 'grid' },
      h('thead', {}, h('tr', {}, columns.map(([, label]) => h('th', { class: 'num' },
        label.replace('{unit}', perftest.bw_unit ?? 'MB/sec'))))),
      h('tbody', {}, h('tr', {}, columns.map(([key]) => h('td', { class: 'num' }, String(perftest.results[key]))))))));
}

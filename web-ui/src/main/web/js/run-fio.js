// The fio numbers of an nvmeof run (fio on NVMe-oF, the initiator's summary; or a transport local run's):
// IOPS, bandwidth and completion-latency percentiles per direction and in all, on which block device and
// over which transport. Its CPU and counters are in run-cost.js, as for the engine's runs.
import { h } from './dom.js';
import { bytesPerSecondToMiB, formatBytes, formatNumber, nanosToMicros } from './format.js';

// the agent's keys (FioSummary): fio's "99.900000" as "99.9"
const CLAT_PERCENTILES = [['50', 'p50'], ['99', 'p99'], ['99.9', 'p99.9']];

function directionRow(label, direction) {
  const clat = direction.clat_ns ?? {};
  const percentile = clat.percentile ?? {};
  return h('tr', {}, h('td', {}, label),
    h('td', { class: 'num' }, formatNumber(direction.iops)),
    h('td', { class: 'num' }, formatNumber(bytesPerSecondToMiB(direction.bw_bytes))),
    h('td', { class: 'num' }, formatNumber(nanosToMicros(clat.min))),
    CLAT_PERCENTILES.map(([key]) => h('td', { class: 'num' }, formatNumber(nanosToMicros(percentile[key])))),
    h('td', { class: 'num' }, formatNumber(nanosToMicros(clat.max))),
    h('td', { class: 'num' }, direction.total_ios ?? '–'));
}

function allRow(summary) {
  const latency = summary.latency_us ?? {};
  return h('tr', {}, h('td', {}, 'all I/Os'),
    h('td', { class: 'num' }, formatNumber(summary.iops ?? summary.msg_rate)),
    h('td', { class: 'num' }, formatNumber(bytesPerSecondToMiB(summary.bw_avg_bps))),
    h('td', { class: 'num' }, formatNumber(latency.min)),
    ['typical', 'p99', 'p999'].map((key) => h('td', { class: 'num' }, formatNumber(latency[key]))),
    h('td', { class: 'num' }, formatNumber(latency.max)),
    h('td', { class: 'num' }, summary.cycles ?? '–'));
}

/** The table, or null for a run that counts no I/Os (not fio's), or has no summary yet. */
export function fioTable(run) {
  const summary = run.summary;
  if (run.counts !== 'ios' || !summary) return null;
  const fio = summary.fio ?? {};
  const directions = ['read', 'write'].filter((name) => (fio[name]?.total_ios ?? 0) > 0);
  return h('div', { class: 'run-fio' },
    h('p', { class: 'fixed-params', id: 'run-fio-where' },
      `fio ${fio.version ?? ''} on ${summary.device ?? '–'} (${summary.side ?? '–'}), transport ${summary.transport ?? '–'}: `
        + `${fio.rw ?? '–'}, bs ${formatBytes(fio.bs)}, iodepth ${fio.iodepth ?? '–'}, numjobs ${fio.numjobs ?? '–'}, `
        + `${fio.ioengine ?? '–'}`),
    h('div', { class: 'table-scroll' }, h('table', { id: 'run-fio', class: 'grid' },
      h('caption', {}, 'fio: completion latency (clat) in µs'),
      h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, 'IOPS (I/O/s)'),
        h('th', { class: 'num' }, 'BW (MiB/s)'), h('th', { class: 'num' }, 'clat min (µs)'),
        CLAT_PERCENTILES.map(([, label]) => h('th', { class: 'num' }, `clat ${label} (µs)`)),
        h('th', { class: 'num' }, 'clat max (µs)'), h('th', { class: 'num' }, 'I/Os'))),
      h('tbody', {}, allRow(summary), directions.map((name) => directionRow(name, fio[name]))))));
}

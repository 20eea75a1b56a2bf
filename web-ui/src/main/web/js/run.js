// One run, #/runs/12: what it ran with and where, what it keeps, its numbers (a latency run's latency
// first, an nvmeof run's fio numbers first), throughput and cycle time over time per thread and its percentiles over all threads (live while
// it runs), its cycle-time distribution, its CPU and NIC counters per side, and its baseline status.
import { getFingerprint, getRun } from './api.js';
import { clearError, showError } from './banner.js';
import { baselineToggle } from './baseline.js';
import { chartCard } from './chart-card.js';
import { destroyAllCharts } from './charts.js';
import { compareHash } from './compare-picker.js';
import { drawDistributions, loadDistributions } from './distribution.js';
import { runFailure } from './failures.js';
import { fingerprintHash } from './fingerprint-history.js';
import { h, statusBadge } from './dom.js';
import {
  bytesPerSecondToGbit, formatNumber, formatTime, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';
import { orderParams, paramList } from './params.js';
import { runCost, runWarnings } from './run-cost.js';
import { fioTable } from './run-fio.js';
import { latencyTable } from './run-latency.js';
import { runStorage } from './run-storage.js';
import { runTimeline } from './run-timeline.js';

const CYCLE_FIELDS = [['min', 'min'], ['median', 'median'], ['avg', 'avg'], ['p99', 'p99'], ['p999', 'p99.9'], ['max', 'max']];

function numbersTable(summary) {
  if (!summary) return h('p', { class: 'empty' }, 'No summary yet: it is stored when the run ends.');
  const rows = [{ label: 'all threads', ...summary }, ...(summary.per_thread ?? []).map((t) => ({ label: `thread ${t.thread}`, ...t }))];
  return h('div', { class: 'table-scroll' }, h('table', { id: 'run-numbers', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, ''), h('th', { class: 'num' }, 'cycles'),
      h('th', { class: 'num' }, 'BW avg (Gbit/s)'), h('th', { class: 'num' }, 'BW peak (Gbit/s)'),
      h('th', { class: 'num' }, 'Msg rate (Mmsg/s)'),
      CYCLE_FIELDS.map(([, label]) => h('th', { class: 'num' }, `cycle ${label} (µs)`)))),
    h('tbody', {}, rows.map((row) => h('tr', {},
      h('td', {}, row.label), h('td', { class: 'num' }, row.cycles ?? '–'),
      h('td', { class: 'num' }, formatNumber(bytesPerSecondToGbit(row.bw_avg_bps))),
      h('td', { class: 'num' }, formatNumber(bytesPerSecondToGbit(row.bw_peak_bps))),
      h('td', { class: 'num' }, formatNumber(messagesPerSecondToMillions(row.msg_rate))),
      CYCLE_FIELDS.map(([key]) => h('td', { class: 'num' }, formatNumber(nanosToMicros(row.cycle_ns?.[key])))))))));
}

/** A bidirectional run (perftest -b): what each side sent, and both together. */
function directionsTable(run) {
  const client = run.summary;
  const server = run.serverSummary;
  if (!client?.bidirectional || !server) return null;
  const sum = (client.bw_avg_bps ?? 0) + (server.bw_avg_bps ?? 0);
  const row = (label, bps, bytes) => h('tr', {}, h('td', {}, label),
    h('td', { class: 'num' }, formatNumber(bytesPerSecondToGbit(bps))), h('td', { class: 'num' }, bytes ?? '–'));
  return h('div', { class: 'table-scroll' }, h('table', { id: 'run-directions', class: 'grid' },
    h('caption', {}, 'Bidirectional: both sides sent at once'),
    h('thead', {}, h('tr', {}, h('th', {}, 'side'), h('th', { class: 'num' }, 'BW avg sent (Gbit/s)'),
      h('th', { class: 'num' }, 'bytes sent'))),
    h('tbody', {},
      row(`client ${run.agentId ?? ''}`.trim(), client.bw_avg_bps, client.bytes),
      row('server', server.bw_avg_bps, server.bytes),
      row('both (sum)', sum, (client.bytes ?? 0) + (server.bytes ?? 0)))));
}

function hostLine(fingerprint) {
  const facts = Object.entries(fingerprint.host).filter(([, value]) => value !== null && value !== undefined);
  return h('p', { class: 'fixed-params', id: 'run-fingerprint' },
    'Fingerprint ', h('code', { title: fingerprint.fingerprint }, fingerprint.fingerprint.slice(0, 12)), ' (',
    h('a', { id: 'run-fingerprint-history', href: fingerprintHash(fingerprint.fingerprint),
      title: 'Every run of this fingerprint (parameters + host) over time, across experiments' }, 'its history'),
    ') — host: ',
    paramList(facts.map(([name, value]) => [name, typeof value === 'object' ? JSON.stringify(value) : value])));
}

/** Renders run `id` into `container`; returns the function that tears it down. */
export function mountRun(container, id) {
  let mounted = true;
  const title = h('h2', {}, `Run #${id}`);
  const back = h('a', { href: '#/', class: 'back' }, '← Experiments');
  const actions = h('div', { class: 'header-actions' });
  const details = h('div', {});
  const warnings = h('div', {});
  const numbers = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const cost = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const distribution = chartCard({ name: 'runDistribution', canvasId: 'chart-run-distribution', title: 'Cycle-time distribution' });
  let shownStatus = null;
  // the header (status, agent, start) follows the stream: read the run again when it says the status moved on
  const timeline = runTimeline({ onStatus: (status) => { if (status !== shownStatus) load(); }, onEnd: () => load() });
  const storage = runStorage({
    onDeleted: () => {
      load();
      timeline.refresh();
    },
  });
  container.replaceChildren(h('section', { id: 'run', class: 'run-view', dataset: { runId: id } },
    h('div', { class: 'card header' }, back, h('div', { class: 'title-row' }, title, actions), details, warnings,
      storage.element),
    h('section', { class: 'card' }, h('h2', {}, 'Over time'), timeline.cards),
    h('div', { class: 'charts' }, distribution),
    h('section', { class: 'card' }, h('h2', {}, 'Numbers'), numbers),
    h('section', { class: 'card' }, h('h2', {}, 'CPU and NIC counters'), cost)));

  let started = false;
  let reads = 0;
  async function load() {
    const read = ++reads;
    try {
      const run = await getRun(id);
      const fingerprint = run.fingerprint ? await getFingerprint(id) : null;
      if (!mounted || read !== reads) return; // a newer read is under way: it draws, not this older one
      clearError('run');
      shownStatus = run.status;
      back.href = `#/experiments/${run.experimentId}`;
      back.textContent = `← Experiment #${run.experimentId}`;
      title.replaceChildren(`Run #${run.id}`, ' ', h('span', { class: 'muted' }, `point ${run.index}, repeat ${run.repeat}`));
      actions.replaceChildren(...[baselineToggle(run, load),
        run.status === 'FINISHED' && h('a', { class: 'button-link', id: 'run-against-baseline', href: compareHash({ run: run.id }) },
          'Against its baseline'),
        run.status === 'FINISHED' && h('a', { class: 'button-link', href: `#/history?candidateRun=${run.id}` }, 'Compare with a run…'),
      ].filter(Boolean));
      details.replaceChildren(...[h('div', { class: 'summary-line' }, statusBadge(run.status),
        h('span', {}, `agent ${run.agentId ?? '–'}`),
        h('span', { class: 'time' }, `started ${formatTime(run.startedAt)}`),
        run.finishedAt && h('span', { class: 'time' }, `finished ${formatTime(run.finishedAt)}`),
        run.error && run.status !== 'FAILED' && h('span', { class: 'failed' }, run.error)),
      runFailure(run),
      h('p', { class: 'fixed-params' }, 'Parameters: ',
        paramList(orderParams(Object.keys(run.params)).map((name) => [name, run.params[name]]))),
      fingerprint && hostLine(fingerprint)].filter(Boolean)); // DOM's replaceChildren writes a null as "null"
      const fio = fioTable(run); // an nvmeof run: fio's numbers; its latency is fio's clat, in the table
      numbers.replaceChildren(...[fio, !fio && latencyTable(run.summary), directionsTable(run), numbersTable(run.summary)]
        .filter(Boolean));
      cost.replaceChildren(runCost(run));
      warnings.replaceChildren(...[runWarnings(run)].filter(Boolean));
      storage.show(run);
      if (!started) {
        started = true;
        timeline.start(run);
      }
      if (run.status !== 'QUEUED' && run.status !== 'RUNNING') {
        const series = await loadDistributions([{ id: run.id, label: `run #${run.id}` }]);
        if (mounted) drawDistributions(distribution, 'runDistribution', series);
      } else {
        drawDistributions(distribution, 'runDistribution', [], { emptyText: 'Stored when the run ends.' });
      }
    } catch (error) {
      if (mounted) showError('run', error);
    }
  }
  load();

  return () => {
    mounted = false;
    timeline.stop();
    storage.stop();
    clearError('run');
    destroyAllCharts();
  };
}

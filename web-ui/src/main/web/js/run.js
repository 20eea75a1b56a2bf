// One run, #/runs/12: what it ran with and where, what it keeps, its numbers (a latency run's latency
// first, an nvmeof run's fio numbers first, an imported run's perftest line last), throughput and cycle time
// over time per thread and its percentiles over all threads (live while it runs), its cycle-time distribution,
// its CPU and NIC counters per side, and its baseline status. What a run has none of is not drawn.
import { getFingerprint, getRun } from './api.js';
import { clearError, showError } from './banner.js';
import { baselineToggle } from './baseline.js';
import { chartCard } from './chart-card.js';
import { destroyAllCharts } from './charts.js';
import { compareHash } from './compare-picker.js';
import { countsIos } from './curve-specs.js';
import { drawDistributions, loadDistributions } from './distribution.js';
import { runFailure } from './failures.js';
import { runExpectation } from './expectations.js';
import { fingerprintHash } from './fingerprint-history.js';
import { ACTIVE_STATUSES, h, statusBadge } from './dom.js';
import {
  bytesPerSecondToGbit, formatNumber, formatTime, iopsToThousands, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';
import { orderParams, paramList } from './params.js';
import { runCost, runWarnings } from './run-cost.js';
import { fioTable } from './run-fio.js';
import { latencyTable } from './run-latency.js';
import { perftestTable } from './run-perftest.js';
import { runStorage } from './run-storage.js';
import { runTimeline } from './run-timeline.js';

const count = (n) => (n === null || n === undefined ? '–' : Number(n).toLocaleString('en'));
const present = (value) => value !== null && value !== undefined && !Number.isNaN(value);

/**
 * The numbers table's column groups: [group label, [[column label, value of a row, format]]]; a run that counts
 * I/Os (fio on NVMe-oF: a cycle is one I/O) names its counts and rate so.
 */
function numberGroups(ios) {
  return [
    [ios ? 'I/Os' : 'cycles', [['', (row) => row.cycles, count]]],
    ['BW (Gbit/s)', [['avg', (row) => bytesPerSecondToGbit(row.bw_avg_bps)], ['peak', (row) => bytesPerSecondToGbit(row.bw_peak_bps)]]],
    ios ? ['IOPS (k)', [['', (row) => iopsToThousands(row.msg_rate)]]]
      : ['msg rate (Mmsg/s)', [['', (row) => messagesPerSecondToMillions(row.msg_rate)]]],
    [ios ? 'I/O time (µs)' : 'cycle time (µs)', [['min', 'min'], ['median', 'median'], ['avg', 'avg'], ['p99', 'p99'],
      ['p99.9', 'p999'], ['max', 'max']].map(([label, key]) => [label, (row) => nanosToMicros(row.cycle_ns?.[key])])],
  ];
}

/**
 * The run's numbers over all threads and per thread, grouped under two header rows so that they fit the page;
 * a column no row has a value in (a perftest import's cycle times or bandwidth) is left out.
 */
function numbersTable(summary, ios) {
  const rows = [{ label: 'all threads', ...summary }, ...(summary.per_thread ?? []).map((t) => ({ label: `thread ${t.thread}`, ...t }))];
  const groups = numberGroups(ios).map(([label, columns]) => [label, columns.filter(([, value]) => rows.some((row) => present(value(row))))])
    .filter(([, columns]) => columns.length > 0);
  const columns = groups.flatMap(([, list]) => list);
  return h('div', { class: 'table-scroll' }, h('table', { id: 'run-numbers', class: 'grid numbers' },
    h('thead', {},
      h('tr', {}, h('th', { rowspan: 2 }, ''), groups.map(([label, list]) => (list.length === 1 && !list[0][0]
        ? h('th', { class: 'num', rowspan: 2 }, label) : h('th', { class: 'num group', colspan: list.length }, label)))),
      h('tr', {}, groups.filter(([, list]) => list.length > 1 || list[0][0])
        .flatMap(([, list]) => list.map(([label]) => h('th', { class: 'num' }, label))))),
    h('tbody', {}, rows.map((row) => h('tr', {}, h('td', {}, row.label),
      columns.map(([, value, format = formatNumber]) => h('td', { class: 'num' }, format(value(row)))))))));
}

/** A bidirectional run (perftest -b): what each side sent, and both together. */
function directionsTable(run) {
  const client = run.summary;
  const server = run.serverSummary;
  if (!client?.bidirectional || !server) return null;
  const sum = (client.bw_avg_bps ?? 0) + (server.bw_avg_bps ?? 0);
  const row = (label, bps, bytes) => h('tr', {}, h('td', {}, label),
    h('td', { class: 'num' }, formatNumber(bytesPerSecondToGbit(bps))), h('td', { class: 'num' }, count(bytes)));
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
  // what a run has nothing of (an import: no intervals, histogram, CPU or counters) is not drawn at all
  const overTimeSection = h('section', { class: 'card', id: 'run-over-time', hidden: true });
  const distributionBox = h('div', { class: 'charts', hidden: true }, distribution);
  const numbersSection = h('section', { class: 'card', id: 'run-numbers-card' }, h('h2', {}, 'Numbers'), numbers);
  const costSection = h('section', { class: 'card', id: 'run-cost-card' }, h('h2', {}, 'CPU and NIC counters'), cost);
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
    overTimeSection, distributionBox, numbersSection, costSection));
  overTimeSection.append(h('h2', {}, 'Over time'), ...timeline.cards);

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
        run.summary?.perftest ? h('span', { id: 'run-imported' }, `imported ${run.summary.perftest.tool} output`)
          : h('span', {}, `agent ${run.agentId ?? '–'}`),
        h('span', { class: 'time' }, `started ${formatTime(run.startedAt)}`),
        run.finishedAt && h('span', { class: 'time' }, `finished ${formatTime(run.finishedAt)}`),
        run.error && run.status !== 'FAILED' && h('span', { class: 'failed' }, run.error)),
      runFailure(run),
      runExpectation(run),
      h('p', { class: 'fixed-params' }, 'Parameters: ',
        paramList(orderParams(Object.keys(run.params)).map((name) => [name, run.params[name]]))),
      fingerprint && hostLine(fingerprint)].filter(Boolean)); // DOM's replaceChildren writes a null as "null"
      const ended = !ACTIVE_STATUSES.has(run.status);
      const fio = fioTable(run); // an nvmeof run: fio's numbers; its latency is fio's clat, in the table
      numbers.replaceChildren(...(run.summary ? [fio, !fio && latencyTable(run.summary), directionsTable(run),
        numbersTable(run.summary, countsIos(run)), perftestTable(run.summary)].filter(Boolean)
        : [h('p', { class: 'empty' }, 'No summary yet: it is stored when the run ends.')]));
      numbersSection.hidden = ended && !run.summary;
      const measuredCost = [run.summary, run.serverSummary].some((summary) => summary?.cpu || summary?.counters);
      cost.replaceChildren(runCost(run));
      costSection.hidden = ended && !measuredCost;
      warnings.replaceChildren(...[runWarnings(run)].filter(Boolean));
      storage.show(run);
      // an ended run that kept no interval (an import, a run that failed before its first) has no timeline nor histogram
      const intervals = !ended || run.cyclesStored > 0;
      overTimeSection.hidden = !intervals;
      distributionBox.hidden = !ended || !intervals;
      if (!started && intervals) {
        started = true;
        timeline.start(run);
      }
      if (ended && intervals) {
        const series = await loadDistributions([{ id: run.id, label: `run #${run.id}` }]);
        if (mounted) drawDistributions(distribution, 'runDistribution', series);
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

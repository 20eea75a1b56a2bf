// What a run keeps in the database (GET /api/runs/{id}/storage): its intervals, which every chart and number
// comes from, its opt-in per-cycle trace, and its histogram; a link to download the intervals, and, once
// the run has ended, a button that deletes the trace (nothing the page shows depends on it).
import { deleteTrace, getStorage, intervalsCsvUrl } from './api.js';
import { clearError, showError } from './banner.js';
import { ACTIVE_STATUSES, h } from './dom.js';
import { formatBytes, formatTime } from './format.js';

const count = (n) => Number(n).toLocaleString('en');
const rows = (n, one, many) => `${count(n)} ${n === 1 ? one : many}`;

function storageText(usage, run) {
  const deleted = run.traceDeletedAt ? `; deleted ${formatTime(run.traceDeletedAt)}` : '';
  // trace records the agent could not drain in time are lost to the trace only (the intervals count every cycle)
  const dropped = run.summary?.dropped > 0 ? `, ${count(run.summary.dropped)} dropped` : '';
  const trace = `trace: ${rows(usage.trace.rows, 'row', 'rows')} (${formatBytes(usage.trace.bytes)}${deleted})${dropped}`;
  return `Stored: ${rows(usage.intervals.rows, 'interval', 'intervals')} (${formatBytes(usage.intervals.bytes)}), ${trace}, `
    + `histogram: ${rows(usage.histogram.rows, 'row', 'rows')} (${formatBytes(usage.histogram.bytes)}); `
    + `${formatBytes(usage.totalBytes)} in all.`;
}

function deleteButton(run, onDeleted) {
  const button = h('button', {
    type: 'button',
    id: 'delete-trace',
    'data-needs': 'admin',
    class: 'secondary delete-trace',
    title: 'Delete this run\'s per-cycle trace; its intervals, summary and histogram stay, and so does every chart',
    onclick: async () => {
      if (!window.confirm(`Delete the trace of run #${run.id} (${rows(run.traceStored, 'row', 'rows')})? `
        + 'Its intervals, summary and histogram stay.')) return;
      button.disabled = true;
      try {
        await deleteTrace(run.id);
        clearError('trace');
        onDeleted?.();
      } catch (error) {
        showError('trace', error);
        button.disabled = false;
      }
    },
  }, 'Delete trace');
  return button;
}

/** → {element, show(run), stop()}: the storage line of a run; `onDeleted` reloads the page after its trace is deleted. */
export function runStorage({ onDeleted }) {
  const element = h('p', { id: 'run-storage', class: 'storage-line' });
  let shown = 0; // answers to an older show(), or that arrive after stop(), are dropped

  async function show(run) {
    const request = ++shown;
    try {
      const usage = await getStorage(run.id);
      if (request !== shown) return;
      clearError('storage');
      const deletable = run.traceStored > 0 && !ACTIVE_STATUSES.has(run.status);
      element.replaceChildren(...[h('span', { class: 'storage-text' }, storageText(usage, run)),
        usage.intervals.rows > 0 && h('a', {
          href: intervalsCsvUrl(run.id), class: 'button-link', id: 'intervals-csv', download: `run-${run.id}-intervals.csv`,
        }, 'Intervals (CSV)'),
        deletable && deleteButton(run, onDeleted)].filter(Boolean));
    } catch (error) {
      if (request === shown) showError('storage', error);
    }
  }

  function stop() {
    shown += 1;
    ['storage', 'trace'].forEach(clearError);
  }

  return { element, show, stop };
}

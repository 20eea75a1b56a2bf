// The "Delete" button of an ended experiment, on its page: the experiment goes with its runs and all they keep.
import { deleteExperiment } from './api.js';
import { clearError, showError } from './banner.js';
import { ACTIVE_STATUSES, h } from './dom.js';

/**
 * A Delete button for `experiment`, or null while it is queued or running (cancel it first). After the
 * experiment is deleted `onDeleted` runs (the page goes back to the list); a refusal shows the server's words.
 */
export function deleteExperimentButton(experiment, onDeleted) {
  if (ACTIVE_STATUSES.has(experiment.status)) return null;
  const button = h('button', {
    type: 'button',
    id: 'delete-experiment',
    'data-needs': 'operator',
    class: 'secondary delete-experiment',
    title: 'Delete this experiment with its runs, their intervals, traces, summaries and baselines',
    onclick: async () => {
      const what = `${experiment.name} #${experiment.id}`;
      const runs = `${experiment.runsTotal} run${experiment.runsTotal === 1 ? '' : 's'}`;
      if (!window.confirm(`Delete experiment ${what} and its ${runs}? Everything they measured is deleted; this cannot be undone.`)) return;
      button.disabled = true;
      try {
        await deleteExperiment(experiment.id);
        clearError('delete');
        onDeleted?.();
      } catch (error) {
        showError('delete', error);
        button.disabled = false;
      }
    },
  }, 'Delete');
  return button;
}

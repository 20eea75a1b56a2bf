// The "Cancel" button of a queued or running experiment, on the list and on its curves page.
import { cancelExperiment } from './api.js';
import { clearError, showError } from './banner.js';
import { ACTIVE_STATUSES, h } from './dom.js';

/**
 * A Cancel button for `experiment`, or null once it has ended. After the POST — whether it
 * cancelled or answered 409 because the experiment ended meanwhile — `onDone` refreshes.
 */
export function cancelButton(experiment, onDone) {
  if (!ACTIVE_STATUSES.has(experiment.status)) return null;
  const button = h('button', {
    type: 'button',
    class: 'cancel',
    'data-needs': 'operator',
    title: 'Cancel the runs that have not finished',
    onclick: async (event) => {
      event.stopPropagation();
      const what = `${experiment.name} #${experiment.id}`;
      if (!window.confirm(`Cancel experiment ${what}? Queued and running runs are cancelled.`)) return;
      button.disabled = true;
      try {
        await cancelExperiment(experiment.id);
        clearError('cancel');
      } catch (error) {
        showError('cancel', error);
      } finally {
        button.disabled = false;
        onDone?.();
      }
    },
  }, 'Cancel');
  return button;
}

// Marking a finished run as the baseline of its fingerprint (PUT/DELETE /api/runs/{id}/baseline).
import { markBaseline, unmarkBaseline } from './api.js';
import { clearError, showError } from './banner.js';
import { h } from './dom.js';

/** A toggle for a finished run (null otherwise); `onChange` refreshes whatever shows it. */
export function baselineToggle(run, onChange) {
  if (run.status !== 'FINISHED') return null;
  const button = h('button', {
    type: 'button',
    'data-needs': 'operator',
    class: run.baseline ? 'baseline-toggle is-baseline' : 'baseline-toggle',
    'aria-pressed': run.baseline ? 'true' : 'false',
    title: run.baseline
      ? 'This run is the baseline of its fingerprint; click to unmark it'
      : 'Mark this run as the baseline of its fingerprint (its parameters + host); replaces the one before',
    onclick: async (event) => {
      event.stopPropagation();
      button.disabled = true;
      try {
        if (run.baseline) await unmarkBaseline(run.id);
        else await markBaseline(run.id);
        clearError('baseline');
      } catch (error) {
        showError('baseline', error);
      } finally {
        button.disabled = false;
        onChange?.();
      }
    },
  }, run.baseline ? '★ baseline' : '☆ baseline');
  return button;
}

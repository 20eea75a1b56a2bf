// Failures up front: what failed, whole, at the top of an experiment's or a run's page, each run linked.
import { h } from './dom.js';

/** Shown at most; the rest are counted, and the runs table lists them all. */
const MOST = 5;

/**
 * The box of an experiment's failed runs (the last try of each point: a try that was tried again is not a failure of
 * the experiment), or null when none failed. Each names its run, linked, and its error in full.
 */
export function experimentFailures(runs) {
  const failed = runs.filter((run) => run.status === 'FAILED' && run.supersededBy == null);
  if (failed.length === 0) return null;
  const more = failed.length - MOST;
  return h('div', { class: 'failure-box', id: 'experiment-failures', role: 'alert' },
    h('h3', {}, `${failed.length} run${failed.length === 1 ? '' : 's'} failed`),
    h('ul', {}, failed.slice(0, MOST).map((run) => h('li', {},
      h('a', { href: `#/runs/${run.id}` }, `Run #${run.id}`), run.agentId ? ` on ${run.agentId}` : '', ': ',
      h('span', { class: 'failure-text' }, run.error ?? 'no reason recorded')))),
    more > 0 ? h('p', { class: 'muted' }, `and ${more} more: see the runs table below`) : null);
}

/** A failed run's error, whole, at the top of its page; null for any other run. */
export function runFailure(run) {
  if (run.status !== 'FAILED' || !run.error) return null;
  return h('div', { class: 'failure-box', id: 'run-failure', role: 'alert' },
    h('h3', {}, 'This run failed'), h('p', { class: 'failure-text' }, run.error),
    run.supersededBy != null ? h('p', {}, 'It was tried again: ', h('a', { href: `#/runs/${run.supersededBy}` },
      `run #${run.supersededBy}`)) : null);
}

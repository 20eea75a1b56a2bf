// The experiments list: newest first, refreshed every 2 s while anything is queued or running.
import { listExperiments } from './api.js';
import { cancelButton } from './cancel.js';
import { comparePicker } from './compare-picker.js';
import { ACTIVE_STATUSES, h, progressBar, statusBadge } from './dom.js';
import { formatTime } from './format.js';
import { refreshLoop } from './refresh.js';
import { submitBox } from './submit.js';

function experimentRow(experiment, refresh) {
  const href = `#/experiments/${experiment.id}`;
  return h('tr', {
    id: `experiment-${experiment.id}`,
    class: 'clickable',
    dataset: { status: experiment.status },
    onclick: (event) => {
      if (event.target.closest('a, button')) return;
      window.location.hash = href;
    },
  },
  h('td', {}, h('a', { href }, experiment.name)),
  h('td', { class: 'num' }, experiment.id),
  h('td', {}, statusBadge(experiment.status)),
  h('td', { class: 'time' }, formatTime(experiment.createdAt)),
  h('td', { class: 'progress-cell' }, progressBar(experiment)),
  h('td', { class: experiment.runsFailed > 0 ? 'num failed' : 'num' }, experiment.runsFailed ?? 0),
  h('td', { class: 'actions' }, cancelButton(experiment, refresh)));
}

function experimentsTable() {
  return h('table', { id: 'experiments', class: 'grid' },
    h('thead', {}, h('tr', {},
      h('th', {}, 'Name'), h('th', { class: 'num' }, 'ID'), h('th', {}, 'Status'),
      h('th', {}, 'Created'), h('th', {}, 'Progress'), h('th', { class: 'num' }, 'Failed'),
      h('th', {}, ''))),
    h('tbody', {}));
}

/** Renders the page into `container`; returns the function that tears it down. */
export function mountExperiments(container) {
  const table = experimentsTable();
  const empty = h('p', { class: 'empty', hidden: true }, 'No experiments yet: submit a matrix.');
  let loop = null;
  const refresh = () => loop?.now();
  const submit = submitBox({ onSubmitted: refresh });
  const picker = comparePicker();
  container.replaceChildren(h('div', { class: 'list-layout' },
    h('section', { class: 'card' }, h('h2', {}, 'Experiments'), table, empty),
    h('div', { class: 'side' }, submit,
      h('section', { class: 'card compare-card' }, h('h2', {}, 'Compare'), picker.form))));

  loop = refreshLoop('experiments', async () => {
    const experiments = await listExperiments();
    table.tBodies[0].replaceChildren(...experiments.map((e) => experimentRow(e, refresh)));
    picker.update(experiments);
    empty.hidden = experiments.length > 0;
    return experiments.some((e) => ACTIVE_STATUSES.has(e.status));
  });
  return () => loop.stop();
}

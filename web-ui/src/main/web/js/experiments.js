// The experiments list: newest first, filtered by status and name (kept in the page's address as
// #/?status=RUNNING&name=text), refreshed every 2 s while anything shown is queued or running. Each row says
// what measured it (its runs' providers; qplab, or the perftest import) and where (the agents its runs ran on), and
// under its status how its runs met its matrix's expect rules, when it has any.
import { listExperiments } from './api.js';
import { cancelButton } from './cancel.js';
import { comparePicker } from './compare-picker.js';
import { ACTIVE_STATUSES, h, progressBar, statusBadge, timeLeft } from './dom.js';
import { experimentVerdict } from './expectations.js';
import { formatTime } from './format.js';
import { importBox } from './import-perftest.js';
import { refreshLoop } from './refresh.js';
import { submitBox } from './submit.js';

const STATUSES = ['QUEUED', 'RUNNING', 'FINISHED', 'FAILED', 'CANCELLED'];

/** Words that may go on lines of their own, each kept whole: a date and its time. */
const words = (list, separator) => list.flatMap((word, i) => [i ? separator : '', h('span', { class: 'nowrap' }, word)]);
const listed = (values) => (values?.length ? values.join(', ') : '–');

/** "qplab", or for an import where it came from ("perftest import"; the program in the title). */
function toolCell(experiment) {
  if (!experiment.importedFrom) return h('td', { class: 'tool' }, experiment.tool ?? '–');
  return h('td', { class: 'tool', title: `${experiment.tool}'s output, imported from ${experiment.importedFrom}` },
    `${experiment.importedFrom} import`);
}

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
  h('td', { class: 'name-cell' }, h('a', { href, title: experiment.name }, experiment.name)),
  h('td', { class: 'num' }, experiment.id),
  h('td', {}, statusBadge(experiment.status), experimentVerdict(experiment)),
  h('td', { class: 'providers' }, listed(experiment.providers)),
  toolCell(experiment),
  h('td', { class: 'agents' }, listed(experiment.agents)),
  h('td', { class: 'time created' }, words(formatTime(experiment.createdAt).split(' '), ' ')),
  h('td', { class: 'progress-cell' }, progressBar(experiment), timeLeft(experiment),
    experiment.runsFailed > 0 && h('span', { class: 'failed runs-failed' }, `${experiment.runsFailed} failed`)),
  h('td', { class: 'actions' }, cancelButton(experiment, refresh)));
}

function experimentsTable() {
  return h('table', { id: 'experiments', class: 'grid' },
    h('thead', {}, h('tr', {},
      h('th', {}, 'Name'), h('th', { class: 'num' }, 'ID'), h('th', {}, 'Status'),
      h('th', { title: 'The providers of its runs' }, 'Provider'), h('th', { title: 'What measured it' }, 'Tool'),
      h('th', { title: 'The agents its runs ran on' }, 'Host'),
      h('th', {}, 'Created'), h('th', {}, 'Progress'), h('th', {}, ''))),
    h('tbody', {}));
}

/** The filter bar; `onChange(filter)` runs after each change (the name box waits for a pause in typing). */
function filterBar(initial, onChange) {
  const status = h('select', { id: 'filter-status', title: 'Show experiments with this status' },
    h('option', { value: '' }, 'any status'),
    STATUSES.map((s) => h('option', { value: s }, s.toLowerCase())));
  status.value = initial.status[0] ?? '';
  const name = h('input', { id: 'filter-name', type: 'search', placeholder: 'name contains…', value: initial.name });
  const current = () => ({ status: status.value ? [status.value] : [], name: name.value.trim() });
  let timer = null;
  status.addEventListener('change', () => onChange(current()));
  name.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => onChange(current()), 300);
  });
  return h('form', { class: 'filters', role: 'search', onsubmit: (event) => event.preventDefault() },
    h('label', {}, 'Status ', status), h('label', {}, 'Name ', name));
}

function filterFromQuery(query) {
  return { status: (query.get('status') ?? '').split(',').filter(Boolean), name: query.get('name') ?? '' };
}

function filterHash({ status, name }) {
  const query = new URLSearchParams();
  if (status.length) query.set('status', status.join(','));
  if (name) query.set('name', name);
  return query.toString() ? `#/?${query}` : '#/';
}

/** Renders the page into `container`; returns the function that tears it down. */
export function mountExperiments(container, query = new URLSearchParams()) {
  let filter = filterFromQuery(query);
  const table = experimentsTable();
  const empty = h('p', { class: 'empty', hidden: true });
  let loop = null;
  let pickerFilled = false;
  const refresh = () => loop?.now();
  const submit = submitBox({ onSubmitted: refresh });
  const imports = importBox({ onImported: refresh });
  const picker = comparePicker();
  const filters = filterBar(filter, (changed) => {
    filter = changed;
    // Keep the address shareable without a hashchange, which would mount the page afresh.
    window.history.replaceState(null, '', filterHash(filter));
    refresh();
  });
  container.replaceChildren(h('div', { class: 'list-layout' },
    h('section', { class: 'card' }, h('div', { class: 'title-row' }, h('h2', {}, 'Experiments'), filters), table, empty),
    h('div', { class: 'side' }, submit, imports,
      h('section', { class: 'card compare-card' }, h('h2', {}, 'Compare'), picker.form))));

  loop = refreshLoop('experiments', async () => {
    const shown = filter;
    const experiments = await listExperiments(shown);
    if (shown !== filter) return true; // changed meanwhile: the next tick shows the new filter
    table.tBodies[0].replaceChildren(...experiments.map((e) => experimentRow(e, refresh)));
    table.dataset.filter = JSON.stringify(shown);
    const filtered = shown.status.length > 0 || Boolean(shown.name);
    if (!filtered) picker.update(experiments);
    else if (!pickerFilled) picker.update(await listExperiments());
    pickerFilled = true;
    empty.textContent = filtered ? 'No experiment matches the filter.'
      : 'No experiments yet: submit a matrix or import perftest output.';
    empty.hidden = experiments.length > 0;
    return experiments.some((e) => ACTIVE_STATUSES.has(e.status));
  });
  return () => loop.stop();
}

// One recurring experiment, #/schedules/12 (GET /api/schedules/12): its cadence, state and matrix, its occurrences
// newest first (each the experiment it submitted with that experiment's status, or why it was skipped or failed),
// and the webhook's deliveries of the alerts about it (GET /api/alerts/deliveries?schedule=12: its stale alerts and
// its experiments' failed expectations and change points) with their tries and last error.
import { getAlerts, getSchedule, listScheduleDeliveries } from './api.js';
import { h, statusBadge } from './dom.js';
import { formatTime } from './format.js';
import { refreshLoop } from './refresh.js';
import {
  cadence, experimentCell, experimentStatuses, localTime, outcomeBadge, scheduleActions, staleFlag, staleSchedules,
} from './schedule-view.js';

const REFRESH_MS = 2000;
/** Occurrences shown (the API keeps the last 500): the experiments of those shown are read for their status. */
const SHOWN = 100;

function details(schedule, stale, actions, matrixShown) {
  const row = (label, ...value) => [h('dt', {}, label), h('dd', {}, ...value)];
  return h('div', { class: 'card header' },
    h('p', {}, h('a', { class: 'back', href: '#/schedules' }, '← Schedules')),
    h('h2', { id: 'schedule-title' }, `Schedule #${schedule.id} ${schedule.name} `, staleFlag(stale)),
    h('dl', { id: 'schedule-details', class: 'schedule-details' },
      row('Cadence', cadence(schedule)),
      row('Enabled', schedule.enabled ? 'yes' : 'no'),
      row('Next run', localTime(schedule.nextRunAt)),
      row('Owner', schedule.owner),
      row('Made', localTime(schedule.createdAt))),
    stale ? h('p', { class: 'error-text stale-message' }, stale) : null,
    h('p', { class: 'actions' }, actions),
    h('details', { class: 'matrix', open: matrixShown.open, ontoggle: (event) => { matrixShown.open = event.target.open; } },
      h('summary', {}, `Matrix (${schedule.contentType})`), h('pre', {}, schedule.matrix)));
}

function occurrencesCard(occurrences, experiments) {
  const shown = occurrences.slice(0, SHOWN);
  const body = occurrences.length === 0 ? h('p', { class: 'empty' }, 'No occurrence yet.')
    : h('div', { class: 'table-scroll' }, h('table', { id: 'occurrences', class: 'grid' },
      h('thead', {}, h('tr', {}, ['Due', 'Fired', 'Outcome', 'Experiment', 'Reason'].map((text) => h('th', {}, text)))),
      h('tbody', {}, shown.map((o) => h('tr', { dataset: { occurrenceId: o.id, outcome: o.outcome } },
        h('td', { class: 'time' }, formatTime(o.dueAt)),
        h('td', { class: 'time' }, formatTime(o.firedAt)),
        h('td', {}, outcomeBadge(o.outcome)),
        h('td', {}, experimentCell(o, experiments)),
        h('td', { class: 'wrap' }, o.reason ?? ''))))));
  return h('section', { class: 'card', id: 'schedule-occurrences' },
    h('h2', {}, `Occurrences, newest first (${occurrences.length})`),
    occurrences.length > SHOWN ? h('p', { class: 'muted' }, `The newest ${SHOWN} of ${occurrences.length}.`) : null,
    body);
}

function deliveriesCard(deliveries) {
  const body = deliveries.length === 0
    ? h('p', { class: 'muted' }, 'No alert about this schedule or its experiments was posted to the webhook '
      + '(qplab.alerts.webhook-url).')
    : h('div', { class: 'table-scroll' }, h('table', { id: 'deliveries', class: 'grid' },
      h('thead', {}, h('tr', {}, ['Alert', 'Status', 'Tries', 'Last error', 'Posted', 'Delivered']
        .map((text) => h('th', {}, text)))),
      h('tbody', {}, deliveries.map((d) => h('tr', { dataset: { key: d.key } },
        h('td', { class: 'wrap' }, h('code', {}, d.key), ' ', d.message),
        h('td', {}, statusBadge(d.status)),
        h('td', { class: 'num' }, String(d.attempts)),
        h('td', { class: 'wrap error-text' }, d.lastError ?? ''),
        h('td', { class: 'time' }, formatTime(d.createdAt)),
        h('td', { class: 'time' }, formatTime(d.deliveredAt)))))));
  return h('section', { class: 'card', id: 'schedule-deliveries' }, h('h2', {}, 'Webhook deliveries'), body);
}

/** Renders schedule `id` into `container`, refreshed every REFRESH_MS; returns its teardown. */
export function mountSchedule(container, id) {
  const page = h('section', { id: 'schedule', class: 'history-view' }, h('p', { class: 'card empty' }, 'Loading…'));
  container.replaceChildren(page);
  const errors = new Map();
  const experiments = experimentStatuses();
  const matrixShown = { open: false }; // as the reader left it, across refreshes
  let loop = null;
  const changed = (deleted) => {
    if (deleted) window.location.hash = '#/schedules';
    else loop.now();
  };
  loop = refreshLoop('schedule', async () => {
    const [schedule, alerts, deliveries] = await Promise.all([getSchedule(id), getAlerts(), listScheduleDeliveries(id)]);
    const known = await experiments(schedule.occurrences.slice(0, SHOWN).map((o) => o.experimentId)
      .filter((e) => e !== undefined && e !== null));
    page.replaceChildren(details(schedule, staleSchedules(alerts).get(schedule.id), scheduleActions(schedule, errors, changed),
      matrixShown),
      occurrencesCard(schedule.occurrences, known), deliveriesCard(deliveries));
    return true;
  }, { intervalMs: REFRESH_MS });
  return () => loop.stop();
}

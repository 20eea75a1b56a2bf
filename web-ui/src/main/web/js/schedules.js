// Recurring experiments, #/schedules: every schedule (GET /api/schedules) with its cadence, whether it is enabled,
// when it fires next, what its latest occurrence produced and whether GET /api/alerts calls it stale; Enable/Disable
// and Delete for an operator (the server's refusal shown in the row), and the form that makes one.
import { getAlerts, listSchedules } from './api.js';
import { h } from './dom.js';
import { formatTime } from './format.js';
import { refreshLoop } from './refresh.js';
import { scheduleForm } from './schedule-form.js';
import {
  cadence, experimentCell, experimentStatuses, localTime, outcomeBadge, scheduleActions, staleFlag, staleSchedules,
} from './schedule-view.js';

const REFRESH_MS = 2000;

function lastCell(last, experiments) {
  if (!last) return h('span', { class: 'muted' }, 'none yet');
  return [outcomeBadge(last.outcome), ' ', h('span', { class: 'time' }, formatTime(last.dueAt)), ' ',
    experimentCell(last, experiments), last.reason ? h('div', { class: 'occurrence-reason' }, last.reason) : null];
}

function scheduleRow(schedule, { experiments, stale, errors, changed }) {
  return h('tr', { id: `schedule-${schedule.id}`, dataset: { enabled: String(schedule.enabled) } },
    h('td', { class: 'name-cell' }, h('a', { href: `#/schedules/${schedule.id}` }, schedule.name),
      h('span', { class: 'muted' }, ` #${schedule.id}`)),
    h('td', { class: 'cadence' }, cadence(schedule)),
    h('td', {}, schedule.enabled ? 'yes' : 'no'),
    h('td', { class: 'time' }, localTime(schedule.nextRunAt)),
    h('td', { class: 'last' }, lastCell(schedule.last, experiments)),
    h('td', {}, staleFlag(stale.get(schedule.id))),
    h('td', {}, schedule.owner),
    h('td', { class: 'actions' }, scheduleActions(schedule, errors, changed)));
}

function schedulesTable(schedules, context) {
  if (schedules.length === 0) {
    return h('p', { class: 'empty' }, 'No schedule yet: make one below, or with ./qplab schedule FILE --cron EXPR.');
  }
  return h('div', { class: 'table-scroll' }, h('table', { id: 'schedules', class: 'grid' },
    h('thead', {}, h('tr', {}, ['Schedule', 'Cadence', 'Enabled', 'Next run', 'Last occurrence', 'Alert', 'Owner', '']
      .map((text) => h('th', {}, text)))),
    h('tbody', {}, schedules.map((schedule) => scheduleRow(schedule, context)))));
}

/** Renders the schedules into `container`, refreshed every REFRESH_MS; returns its teardown. */
export function mountSchedules(container) {
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const errors = new Map();
  const experiments = experimentStatuses();
  let loop = null;
  const changed = () => loop.now();
  container.replaceChildren(h('section', { id: 'schedules-page', class: 'history-view' },
    h('div', { class: 'card header' }, h('h2', {}, 'Schedules'),
      h('p', { class: 'muted' }, 'Recurring experiments: each submits its matrix as its owner at every occurrence, one '
        + 'at a time (an occurrence whose previous experiment is still queued or running is skipped). Stale: no '
        + 'finished experiment for twice its period.')),
    h('div', { class: 'card' }, list),
    scheduleForm({ onCreated: changed })));

  loop = refreshLoop('schedules', async () => {
    const [schedules, alerts] = await Promise.all([listSchedules(), getAlerts()]);
    const known = await experiments(schedules.map((s) => s.last?.experimentId).filter((id) => id !== undefined && id !== null));
    list.replaceChildren(schedulesTable(schedules, { experiments: known, stale: staleSchedules(alerts), errors, changed }));
    return true;
  }, { intervalMs: REFRESH_MS });
  return () => loop.stop();
}

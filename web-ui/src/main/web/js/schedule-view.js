// What the Schedules page and one schedule's page both show of a schedule: its cadence as written and in words, a
// time in the browser's locale with its zone, its latest occurrence, the stale flag of GET /api/alerts, the
// experiments its occurrences submitted (with their status) and the Enable/Disable and Delete buttons.
import { ApiError, deleteSchedule, getExperiment, setScheduleEnabled } from './api.js';
import { ACTIVE_STATUSES, h, statusBadge } from './dom.js';

const DAYS = { MON: 'Mondays', TUE: 'Tuesdays', WED: 'Wednesdays', THU: 'Thursdays', FRI: 'Fridays', SAT: 'Saturdays',
  SUN: 'Sundays', 'MON-FRI': 'weekdays', '1-5': 'weekdays' };

const plural = (n, unit) => `${n} ${unit}${n === '1' ? '' : 's'}`;
const pad = (n) => n.padStart(2, '0');

/** A cron expression's common shapes in words ("every 2 seconds", "daily at 02:00"); null for the others. */
export function cronWords(cron) {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 6) return null;
  const [second, minute, hour, day, month, weekday] = fields;
  const every = (field) => field.match(/^\*\/(\d+)$/)?.[1];
  const number = (field) => /^\d+$/.test(field);
  if (day !== '*' || month !== '*') return null;
  if (weekday === '*' && minute === '*' && hour === '*') {
    if (second === '*') return 'every second';
    if (every(second)) return `every ${plural(every(second), 'second')}`;
  }
  if (weekday === '*' && number(second) && hour === '*' && every(minute)) return `every ${plural(every(minute), 'minute')}`;
  if (weekday === '*' && number(second) && number(minute) && every(hour)) return `every ${plural(every(hour), 'hour')}`;
  if (weekday === '*' && number(second) && number(minute) && hour === '*') return `hourly at minute ${minute}`;
  if (number(second) && number(minute) && number(hour)) {
    const at = `${pad(hour)}:${pad(minute)}${second === '0' ? '' : `:${pad(second)}`}`;
    if (weekday === '*') return `daily at ${at}`;
    if (DAYS[weekday.toUpperCase()]) return `${DAYS[weekday.toUpperCase()]} at ${at}`;
  }
  return null;
}

/** "0 0 2 * * * (daily at 02:00, Europe/Berlin)" or "every 24 hours". */
export function cadence(schedule) {
  if (!schedule.cron) return `every ${schedule.everyHours} ${schedule.everyHours === 1 ? 'hour' : 'hours'}`;
  const words = [cronWords(schedule.cron), schedule.timeZone].filter(Boolean).join(', ');
  return [h('code', { class: 'cron' }, schedule.cron), words ? ` (${words})` : ''];
}

/** A time in the browser's locale, with its time zone; "–" for none. */
export function localTime(iso) {
  if (!iso) return '–';
  return new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}

/** The stale schedules of GET /api/alerts, by id: each alert's message. */
export function staleSchedules(alerts) {
  const stale = new Map();
  for (const alert of alerts.alerts ?? []) {
    const match = alert.kind === 'stale' && alert.key.match(/^stale:(\d+):/);
    if (match) stale.set(Number(match[1]), alert.message);
  }
  return stale;
}

export function staleFlag(message) {
  return message ? h('span', { class: 'badge badge-stale', title: message }, 'stale') : '';
}

/**
 * The experiments of a page's occurrences, read once each while they are queued or running and kept once they have
 * ended: `load(ids)` resolves to a Map id → the experiment, or null once it was deleted.
 */
export function experimentStatuses() {
  const known = new Map();
  return async function load(ids) {
    await Promise.all([...new Set(ids)].filter((id) => !known.has(id) || ACTIVE_STATUSES.has(known.get(id)?.status))
      .map(async (id) => {
        try {
          known.set(id, await getExperiment(id));
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 404)) throw error;
          known.set(id, null);
        }
      }));
    return known;
  };
}

/** The experiment an occurrence submitted, linked to its page, with its status. */
export function experimentCell(occurrence, experiments) {
  if (occurrence.outcome !== 'SUBMITTED') return '';
  if (occurrence.experimentId === undefined || occurrence.experimentId === null) return h('span', { class: 'muted' }, 'deleted');
  const experiment = experiments.get(occurrence.experimentId);
  return [h('a', { href: `#/experiments/${occurrence.experimentId}` }, `#${occurrence.experimentId}`), ' ',
    experiment ? statusBadge(experiment.status) : h('span', { class: 'muted' }, experiment === null ? 'deleted' : '')];
}

/** An occurrence's outcome: SUBMITTED, SKIPPED or FAILED. */
export function outcomeBadge(outcome) {
  return h('span', { class: `badge badge-outcome-${outcome.toLowerCase()}` }, outcome);
}

/** The server's own words for a refused action: the body's error, else the request's message. */
function verbatim(error) {
  return typeof error.body === 'object' && error.body?.error ? error.body.error : error.message;
}

/**
 * Enable or Disable, and Delete (asked first), for an operator; `errors` (a Map id → text kept across re-renders)
 * holds what the server answered to the last refused one, shown beside them. `changed(deleted)` follows each.
 */
export function scheduleActions(schedule, errors, changed) {
  const act = (what) => async () => {
    if (what === 'delete' && !window.confirm(`Delete schedule #${schedule.id} ${schedule.name}? Its occurrences' `
      + 'history goes with it; its experiments stay.')) return;
    try {
      if (what === 'delete') await deleteSchedule(schedule.id);
      else await setScheduleEnabled(schedule.id, what === 'enable');
      errors.delete(schedule.id);
    } catch (error) {
      errors.set(schedule.id, verbatim(error));
      changed(false);
      return;
    }
    changed(what === 'delete');
  };
  return [
    h('button', { type: 'button', class: 'secondary schedule-toggle', 'data-needs': 'operator',
      onclick: act(schedule.enabled ? 'disable' : 'enable') }, schedule.enabled ? 'Disable' : 'Enable'), ' ',
    h('button', { type: 'button', class: 'secondary schedule-delete', 'data-needs': 'operator', onclick: act('delete'),
      title: 'An admin may delete any schedule, an operator those it made' }, 'Delete'),
    errors.has(schedule.id) ? h('div', { class: 'error-text schedule-error' }, errors.get(schedule.id)) : null,
  ];
}

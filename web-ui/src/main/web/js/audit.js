// The audit log on #/account (admins): who did what, and when; newest first, a page at a time ("Older events" asks
// for the events before the last one shown: the API's cursor), filtered by actor, action, status and time.
import { listAudit } from './api.js';
import { h } from './dom.js';
import { formatTime } from './format.js';

const PAGE = 100;

function row(e) {
  return h('tr', { dataset: { id: e.id } }, h('td', { class: 'time' }, formatTime(e.at)), h('td', {}, e.actor ?? '—'),
    h('td', {}, e.action), h('td', { class: 'wrap' }, h('code', {}, e.target ?? '')), h('td', { class: 'num' }, e.status ?? ''),
    h('td', {}, e.remote ?? ''), h('td', { class: 'num', title: 'failed logins are counted per address and minute' },
      e.times ?? 1));
}

/** A datetime-local input's value (local time) as ISO 8601 with its offset, as the API takes it; undefined if empty. */
function isoTime(value) {
  return value ? new Date(value).toISOString() : undefined;
}

/** The audit card; `message` words an ApiError as the server did. */
export function auditCard(message) {
  const body = h('tbody', {});
  const outcome = h('span', { class: 'muted', id: 'audit-outcome', role: 'status' });
  const older = h('button', { type: 'button', class: 'secondary', id: 'audit-older', hidden: true }, 'Older events');
  const field = (name, label, attributes = {}) => h('label', {}, h('span', {}, label), h('input', { name, ...attributes }));
  let filters = {};
  let last = null;
  let asked = 0; // a newer question makes an older answer stale

  async function load(append) {
    const mine = ++asked;
    older.disabled = true;
    try {
      const events = await listAudit({ ...filters, limit: PAGE, before: append ? last : undefined });
      if (mine !== asked) return;
      if (!append) body.replaceChildren();
      body.append(...events.map(row));
      if (events.length > 0) last = events[events.length - 1].id;
      older.hidden = events.length < PAGE;
      const shown = body.children.length;
      outcome.textContent = shown === 0 ? 'No events match.' : `${shown} event${shown === 1 ? '' : 's'} shown`
        + (older.hidden ? ' (all of them)' : '');
    } catch (error) {
      if (mine === asked) outcome.textContent = message(error);
    } finally {
      older.disabled = false;
    }
  }

  const form = h('form', { id: 'audit-filter', class: 'audit-filters', onsubmit: (event) => {
    event.preventDefault();
    const data = Object.fromEntries(new FormData(form).entries());
    filters = { actor: data.actor.trim() || undefined, action: data.action.trim() || undefined,
      status: data.status.trim() || undefined, since: isoTime(data.since), until: isoTime(data.until) };
    last = null;
    load(false);
  }, onreset: () => {
    filters = {};
    last = null;
    setTimeout(() => load(false)); // after the inputs are cleared
  } },
  field('actor', 'Who', { placeholder: 'account', size: 12 }),
  field('action', 'What contains', { placeholder: 'DELETE, /api/hosts, login', size: 22 }),
  field('status', 'Status', { placeholder: '403 or 4xx', size: 8, pattern: '[1-5]([0-9]{2}|[xX]{2})' }),
  field('since', 'From', { type: 'datetime-local' }),
  field('until', 'Until', { type: 'datetime-local' }),
  h('button', { type: 'submit', class: 'secondary' }, 'Filter'),
  h('button', { type: 'reset', class: 'secondary' }, 'Clear'));
  older.addEventListener('click', () => load(true));
  load(false);
  return h('section', { class: 'card', 'data-needs': 'admin' }, h('h2', {}, 'Audit log (newest first)'), form,
    h('div', { class: 'table-scroll' }, h('table', { id: 'audit', class: 'grid' },
      h('thead', {}, h('tr', {}, ['When', 'Who', 'What', 'Target', 'Status', 'From', 'Times'].map((t) => h('th', {}, t)))),
      body)),
    h('div', { class: 'audit-more' }, older, outcome));
}

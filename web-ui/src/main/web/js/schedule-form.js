// The "New schedule" form: a name, the matrix as the submit box takes it (YAML or JSON text), and when it fires (a
// cron expression or every so many hours). POST /api/schedules checks it as a submit would; its 400 lists every
// violation, each shown here with the field it names.
import { createSchedule, matrixContentType } from './api.js';
import { clearError, showError } from './banner.js';
import { h } from './dom.js';
import { localTime } from './schedule-view.js';

const EXAMPLE = `name: nightly tcp
base:
  provider: tcp
  msg_size: 4K
  iterations: 200
`;

function violationItems(result) {
  if (result.violations.length === 0) return [h('li', {}, result.message)];
  return result.violations.map((v) => h('li', {}, h('code', {}, v.field || '(schedule)'), ': ', v.message));
}

/** The form; `onCreated(schedule)` follows each schedule made. */
export function scheduleForm({ onCreated }) {
  const name = h('input', { id: 'schedule-name', name: 'name', size: 30, placeholder: 'default: the matrix\'s name' });
  const matrix = h('textarea', { id: 'schedule-matrix', spellcheck: 'false', rows: 8 });
  matrix.value = EXAMPLE;
  const when = h('select', { id: 'schedule-when' }, h('option', { value: 'cron' }, 'cron'),
    h('option', { value: 'everyHours' }, 'every N hours'));
  const value = h('input', { id: 'schedule-cadence', size: 24, placeholder: '0 0 2 * * *',
    title: 'Spring\'s cron: 6 fields, seconds first (second minute hour day-of-month month day-of-week), in the '
      + 'controller\'s time zone; or a number of hours' });
  when.addEventListener('change', () => { value.placeholder = when.value === 'cron' ? '0 0 2 * * *' : '24'; });
  const violations = h('ul', { id: 'schedule-violations', class: 'violations', hidden: true });
  const outcome = h('p', { id: 'schedule-outcome', class: 'submit-outcome', role: 'status' });
  const button = h('button', { type: 'submit' }, 'Make schedule');

  async function submit(event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = '';
    const text = value.value.trim();
    const body = { name: name.value.trim() || undefined, matrix: matrix.value, contentType: matrixContentType(matrix.value) };
    if (when.value === 'cron') body.cron = text || undefined;
    else body.everyHours = /^\d+$/.test(text) ? Number(text) : (text || undefined);
    try {
      const result = await createSchedule(body);
      clearError('schedule-form');
      if (result.schedule) {
        const made = result.schedule;
        violations.hidden = true;
        violations.replaceChildren();
        outcome.dataset.verdict = 'made';
        outcome.replaceChildren('Made ', h('a', { href: `#/schedules/${made.id}` }, `${made.name} (#${made.id})`),
          `: first run ${localTime(made.nextRunAt)}.`);
        onCreated(made);
      } else {
        outcome.dataset.verdict = 'rejected';
        outcome.textContent = `Rejected: ${result.message}`;
        violations.replaceChildren(...violationItems(result));
        violations.hidden = false;
      }
    } catch (error) {
      showError('schedule-form', error);
    } finally {
      button.disabled = false;
    }
  }

  return h('section', { class: 'card submit', id: 'new-schedule', 'data-needs': 'operator' },
    h('h2', {}, 'New schedule'),
    h('form', { id: 'schedule-form', onsubmit: submit },
      h('label', { for: 'schedule-name' }, 'Name'), name,
      h('label', { for: 'schedule-matrix' }, 'Matrix (YAML or JSON, as the submit box takes it)'), matrix,
      h('label', { for: 'schedule-cadence' }, 'Fires'), h('div', { class: 'schedule-cadence' }, when, ' ', value),
      violations,
      h('div', { class: 'submit-actions' }, button, outcome)));
}

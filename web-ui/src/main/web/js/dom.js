// A tiny element builder, so pages read as the markup they produce.
import { formatDuration } from './format.js';

/**
 * h('td', {class: 'num'}, '4 KiB') → <td class="num">4 KiB</td>.
 * Attributes starting with "on" become listeners; `style` is an object set through element.style (the page's
 * Content-Security-Policy refuses style="" attributes, not CSSOM); null/false children are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      element.addEventListener(name.slice(2), value);
    } else if (name === 'dataset') {
      Object.assign(element.dataset, value);
    } else if (name === 'style') {
      Object.assign(element.style, value);
    } else {
      element.setAttribute(name, value === true ? '' : String(value));
    }
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

export function statusBadge(status) {
  return h('span', { class: `badge badge-${String(status).toLowerCase()}` }, status);
}

/**
 * "4 / 9 runs" with a bar. Whether runsDone counts failed runs is not pinned down by the
 * API, so the failed share is drawn after the done share and the two never exceed the total.
 */
export function progressBar({ runsDone = 0, runsTotal = 0, runsFailed = 0 }) {
  const percent = (count) => (runsTotal > 0 ? (100 * count) / runsTotal : 0);
  const failed = Math.min(runsFailed, runsTotal);
  const done = Math.min(runsDone, runsTotal - failed);
  return h('div', { class: 'progress' },
    h('div', {
      class: 'progress-bar',
      role: 'progressbar',
      'aria-valuemin': 0,
      'aria-valuemax': runsTotal,
      'aria-valuenow': runsDone,
    },
    h('span', { class: 'progress-done', style: { width: `${percent(done)}%` } }),
    h('span', { class: 'progress-failed', style: { width: `${percent(failed)}%` } })),
    h('span', { class: 'progress-text' }, `${runsDone} / ${runsTotal} runs · ${Math.floor(percent(runsDone))} %`));
}

/** "~45 s left" from the server's estimate (finished runs' durations); null when there is none. */
export function timeLeft(experiment) {
  if (experiment.secondsLeft === undefined || experiment.secondsLeft === null) return null;
  return h('span', { class: 'time-left', title: `runs left × mean run time (${formatDuration(experiment.meanRunSeconds)})`
    + ' ÷ runs running now' }, `~${formatDuration(experiment.secondsLeft)} left`);
}

export const ACTIVE_STATUSES = new Set(['QUEUED', 'RUNNING']);

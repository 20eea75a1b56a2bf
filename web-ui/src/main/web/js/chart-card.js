// One chart in a card: its caption, the canvas (or a line saying why there is nothing to draw), a
// note of what the chart is pinned at and what its band means, and its download buttons.
import { destroyChart, drawLineChart } from './charts.js';
import { h } from './dom.js';
import { downloadButtons } from './downloads.js';
import { pinnedText } from './pins.js';

/** A card for the chart `name`; `controls` (optional) go next to the caption. */
export function chartCard({ name, canvasId, title, controls = null, className = '' }) {
  return h('figure', { class: `card chart-card ${className}`.trim(), dataset: { chart: name } },
    h('figcaption', {}, h('span', { class: 'chart-title' }, title), controls),
    h('div', { class: 'chart-box is-empty' },
      h('canvas', { id: canvasId, 'aria-label': title, role: 'img' }),
      h('p', { class: 'chart-empty' }, 'Loading…')),
    h('p', { class: 'chart-notes' },
      h('span', { class: 'pin-note', hidden: true }),
      h('span', { class: 'band-note', hidden: true })),
    downloadButtons(name));
}

function runsText(low, high) {
  return low === high ? `${high} runs` : `${low}–${high} runs`;
}

/**
 * What the spread means, from the points' n (their repeats): a band over n > 1 runs of each configuration; with a
 * single run per point there is no band and nothing to say.
 */
export function bandText(series, spread = true) {
  const counts = series.filter((s) => s.showLine !== false) // points alone (each run) have no band
    .flatMap((s) => s.points.map((p) => p.n)).filter((n) => typeof n === 'number');
  const high = Math.max(0, ...counts);
  if (high <= 1) return '';
  const low = Math.min(...counts);
  const lowWithBand = Math.min(...counts.filter((n) => n > 1));
  const where = low === 1 ? ' (none where a point has 1 run)' : '';
  return spread ? `band: min–max over ${runsText(lowWithBand, high)} of each point${where}`
    : `each point the median of ${runsText(low, high)}; min–max in the tooltip`;
}

function setNote(element, text) {
  if (element.textContent !== text) element.textContent = text;
  element.hidden = !text;
}

/**
 * Draws `spec` (see charts.js) into the card, or shows `emptyText` when it has no series; without an
 * `emptyText` a card with nothing to draw is not shown at all (class no-data). The card's title and
 * `spec.pinned` ({name: value}) go with the chart, for its downloads; the notes say both.
 */
export function showChart(card, name, spec, emptyText = null) {
  const canvas = card.querySelector('canvas');
  const box = canvas.parentElement;
  const empty = !spec || spec.series.length === 0 || spec.series.every((s) => s.points.length === 0);
  box.classList.toggle('is-empty', empty);
  card.classList.toggle('has-chart', !empty);
  card.classList.toggle('no-data', empty && !emptyText);
  const pinned = pinnedText(spec?.pinned);
  setNote(card.querySelector('.pin-note'), pinned ? `at ${pinned}` : '');
  setNote(card.querySelector('.band-note'), empty ? '' : bandText(spec.series, spec.spread !== false));
  if (empty) {
    box.querySelector('.chart-empty').textContent = emptyText ?? '';
    destroyChart(name);
    return null;
  }
  const title = card.querySelector('.chart-title').textContent;
  return drawLineChart(name, canvas, { title, ...spec });
}

// One chart in a card: its caption, the canvas (or a line saying why there is nothing to draw)
// and its download buttons.
import { destroyChart, drawLineChart } from './charts.js';
import { h } from './dom.js';
import { downloadButtons } from './downloads.js';

/** A card for the chart `name`; `controls` (optional) go next to the caption. */
export function chartCard({ name, canvasId, title, controls = null, className = '' }) {
  return h('figure', { class: `card chart-card ${className}`.trim(), dataset: { chart: name } },
    h('figcaption', {}, h('span', { class: 'chart-title' }, title), controls),
    h('div', { class: 'chart-box is-empty' },
      h('canvas', { id: canvasId, 'aria-label': title, role: 'img' }),
      h('p', { class: 'chart-empty' }, 'Loading…')),
    downloadButtons(name));
}

/**
 * Draws `spec` (see charts.js) into the card, or shows `emptyText` when it has no series.
 * The card's title goes with the chart, for its downloads.
 */
export function showChart(card, name, spec, emptyText) {
  const canvas = card.querySelector('canvas');
  const box = canvas.parentElement;
  const empty = !spec || spec.series.length === 0 || spec.series.every((s) => s.points.length === 0);
  box.classList.toggle('is-empty', empty);
  card.classList.toggle('has-chart', !empty);
  if (empty) {
    box.querySelector('.chart-empty').textContent = emptyText;
    destroyChart(name);
    return null;
  }
  const title = card.querySelector('.chart-title').textContent;
  return drawLineChart(name, canvas, { title, ...spec });
}

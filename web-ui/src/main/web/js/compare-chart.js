// The overlay of a comparison: bandwidth vs message size of both experiments on one chart,
// the baseline's curves solid, the candidate's dashed, one colour per thread count.
import { getCurve } from './api.js';
import { destroyChart, drawLineChart } from './charts.js';
import { h } from './dom.js';
import { bytesPerSecondToGbit } from './format.js';
import { toSeries } from './curves.js';

const NAME = 'compareBandwidth';
const QUERY = { x: 'msg_size', y: 'bw_avg_bps', series: 'threads' };

export function compareChartCard() {
  return h('figure', { class: 'card chart-card compare-chart' },
    h('figcaption', {}, 'Bandwidth vs message size'),
    h('div', { class: 'chart-box is-empty' },
      h('canvas', { id: 'chart-compare-bw', 'aria-label': 'Bandwidth vs message size', role: 'img' }),
      h('p', { class: 'chart-empty' }, 'Loading…')));
}

export function loadCompareCurves(baselineId, candidateId) {
  return Promise.all([getCurve(baselineId, QUERY), getCurve(candidateId, QUERY)]);
}

/** Draws both sides' curves into the card; series of equal value share a colour. */
export function drawCompareChart(card, [baselineCurve, candidateCurve]) {
  const sides = [['baseline', baselineCurve, false], ['candidate', candidateCurve, true]]
    .map(([side, curve, dashed]) => toSeries(curve, bytesPerSecondToGbit)
      .map((s) => ({ ...s, label: `${side} · ${s.label}`, dashed })));
  const byValue = (a, b) => (typeof a === 'number' && typeof b === 'number'
    ? a - b : String(a).localeCompare(String(b)));
  const values = [...new Set(sides.flat().map((s) => JSON.stringify(s.value)))]
    .sort((a, b) => byValue(JSON.parse(a), JSON.parse(b)));
  const ordered = [...sides.flat()].sort((a, b) => values.indexOf(JSON.stringify(a.value))
    - values.indexOf(JSON.stringify(b.value)) || Number(a.dashed) - Number(b.dashed));
  const series = ordered.map((s) => ({ ...s, colorIndex: values.indexOf(JSON.stringify(s.value)) }));

  const canvas = card.querySelector('canvas');
  const box = canvas.parentElement;
  box.classList.toggle('is-empty', series.length === 0);
  if (series.length === 0) {
    box.querySelector('.chart-empty').textContent = 'Neither experiment has finished runs.';
    destroyChart(NAME);
    return;
  }
  drawLineChart(NAME, canvas, {
    series,
    colorCount: values.length,
    xKind: 'size',
    xTitle: 'Message size (bytes, log2)',
    yTitle: 'Bandwidth (Gbit/s)',
    unit: 'Gbit/s',
  });
}

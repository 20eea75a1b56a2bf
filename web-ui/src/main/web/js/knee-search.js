// A knee search's card on the experiment page (matrix search: {knee: dimension, low, high}): the values of the
// dimension measured so far (each the median over its repeats, min–max as the band) and, once the search ended, its
// knee or cliff marked on the curve as the bracket it lies in (GET /api/experiments/{id}/search).
import { chartCard, showChart } from './chart-card.js';
import { h } from './dom.js';
import { bytesPerSecondToGbit, formatNumber } from './format.js';

function display(search) {
  if (search.unit === 'B/s') return { unit: 'Gbit/s', of: bytesPerSecondToGbit };
  if (search.unit === 'ns') return { unit: 'µs', of: (v) => v / 1000 };
  return { unit: search.unit, of: (v) => v };
}

function resultText(search) {
  const r = search.result;
  if (search.state === 'running') {
    return `Searching ${search.dimension} ${search.low}–${search.high}: ${search.points.length} values measured, `
      + `${search.runs} of at most ${search.maxRuns} runs.`;
  }
  if (search.state === 'stopped') return `Stopped: ${search.stopped}.`;
  if (r.kind === 'none') return `No knee: ${r.why}.`;
  const where = r.bracketLow === r.bracketHigh ? `${r.bracketLow}` : `${r.bracketLow}–${r.bracketHigh}`;
  return `${r.kind === 'cliff' ? 'Cliff' : 'Knee'} at ${search.dimension} ${r.value} (between ${where}`
    + `${r.bracketed ? '' : ', not bracketed to the resolution: max_runs ran out'}), found in ${search.points.length} `
    + `values, ${search.runs} runs: ${r.why}.`;
}

/** The card, hidden until update() gets a search; update(null) hides it again. */
export function kneeSearchCard() {
  const card = chartCard({ name: 'kneeSearch', canvasId: 'chart-knee-search', title: 'Knee search', className: 'wide' });
  const line = h('p', { class: 'search-result' });
  card.insertBefore(line, card.querySelector('.chart-notes'));
  card.hidden = true;
  return {
    card,
    update(search) {
      card.hidden = !search;
      if (!search) return;
      const { unit, of } = display(search);
      card.querySelector('.chart-title').textContent = `Knee search: ${search.metric} [${unit}] vs ${search.dimension}`;
      const points = search.points.map((p) => ({ x: p.x, y: of(p.y), min: of(p.min), max: of(p.max), n: p.n }));
      const series = [{ label: `${search.metric}, median of each value's runs`, points }];
      const r = search.result;
      if (r && r.kind !== 'none') {
        const at = (x) => points.find((p) => p.x === x)?.y;
        series.push({ label: `${r.kind} bracket`, dashed: true, pointRadius: 7, colorIndex: 1, colorCount: 2,
          points: [{ x: r.bracketLow, y: at(r.bracketLow) }, { x: r.bracketHigh, y: at(r.bracketHigh) }]
            .filter((p) => p.y !== undefined) });
      }
      showChart(card, 'kneeSearch', { series, xKind: 'log', xTitle: search.dimension, yTitle: `${search.metric} [${unit}]`,
        unit, colorCount: 2 }, 'No value measured yet.');
      line.textContent = resultText(search);
      Object.assign(line.dataset, { state: search.state, kind: r?.kind ?? '', bracketLow: r ? String(r.bracketLow) : '',
        bracketHigh: r ? String(r.bracketHigh) : '' });
      line.title = `resolution ${formatNumber(search.resolution * 100)} %, knee gain ${formatNumber(search.kneeGain)}`;
    },
  };
}

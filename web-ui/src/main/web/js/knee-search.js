// A search's card on the experiment page (GET /api/experiments/{id}/search). A knee search (matrix search: {knee:
// dimension, low, high}): the values of the dimension measured so far (each the median over its repeats, min–max as
// the band) and, once the search ended, its knee or cliff marked on the curve as the bracket it lies in. An anomaly
// search (search: {anomalies: [...]}): a table of the anomalies found so far, each point with its metric against its
// neighbours' best expectation, its minimal feature set and the counters that warned.
import { chartCard, showChart } from './chart-card.js';
import { h } from './dom.js';
import { bytesPerSecondToGbit, formatNumber, formatParam } from './format.js';

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

/** "qps_per_thread 4, msg_size 64 KiB", in the search's order of its dimensions (a stored report's maps are not). */
function pointText(point, names) {
  return names.filter((name) => point && name in point).map((name) => `${name} ${formatParam(name, point[name])}`)
    .join(', ');
}

function anomaliesText(search) {
  const { report } = search.anomalies;
  const found = `${report.anomalies.length} anomal${report.anomalies.length === 1 ? 'y' : 'ies'} in ${report.points} `
    + `points, ${search.runs} of at most ${search.maxRuns} runs`;
  if (search.state === 'running') return `Walking: ${found}.`;
  if (search.state === 'stopped') return `Stopped: ${search.stopped}.`;
  return `Done: ${found}. ${report.why}`;
}

function anomaliesTable(search) {
  const { unit, of } = display(search);
  const names = search.anomalies.dimensions.map((d) => d.name);
  const rows = search.anomalies.report.anomalies.map((a) => {
    const minimal = Object.keys(a.minimalFeatures ?? {}).length === 0
      ? (a.reduced ? 'none: no single reset removes it' : 'not reduced (runs ran out)') : pointText(a.minimalFeatures, names);
    const ratio = a.value != null && a.expected ? ` (${formatNumber((100 * a.value) / a.expected, 2)} %)` : '';
    return h('tr', { dataset: { kinds: a.kinds.join(' ') } },
      h('td', {}, pointText(a.point, names)),
      h('td', { class: 'num' }, a.value == null ? '–' : `${formatNumber(of(a.value))}${ratio}`),
      h('td', { class: 'num' }, a.expected == null ? '–' : formatNumber(of(a.expected))),
      h('td', { class: 'minimal' }, minimal),
      h('td', {}, a.kinds.join(', ')),
      h('td', {}, a.counters.length ? a.counters.join('; ') : '–'),
      h('td', { class: 'num' }, String(a.sameAt.length)));
  });
  if (rows.length === 0) return h('p', { class: 'chart-empty' }, 'No anomaly found yet.');
  return h('div', { class: 'table-scroll' }, h('table', { id: 'search-anomalies', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Point'), h('th', {}, `${search.metric} [${unit}]`),
      h('th', {}, `Neighbours' best [${unit}]`), h('th', {}, 'Minimal feature set'), h('th', {}, 'Why'),
      h('th', {}, 'Counters that warned'), h('th', {}, 'Same at'))),
    h('tbody', {}, rows)));
}

/** The card, hidden until update() gets a search; update(null) hides it again. */
export function kneeSearchCard() {
  const card = chartCard({ name: 'kneeSearch', canvasId: 'chart-knee-search', title: 'Knee search', className: 'wide' });
  const line = h('p', { class: 'search-result' });
  card.insertBefore(line, card.querySelector('.chart-notes'));
  const report = h('div', { class: 'search-anomalies', hidden: true });
  card.insertBefore(report, line);
  card.hidden = true;
  return {
    card,
    update(search) {
      card.hidden = !search;
      if (!search) return;
      const anomalies = search.kind === 'anomalies';
      card.querySelector('.chart-box').hidden = anomalies;
      report.hidden = !anomalies;
      if (anomalies) {
        card.querySelector('.chart-title').textContent = `Anomaly search: ${search.metric} over `
          + `${search.anomalies.dimensions.map((d) => d.name).join(', ')}`;
        report.replaceChildren(anomaliesTable(search));
        line.textContent = anomaliesText(search);
        Object.assign(line.dataset, { state: search.state, kind: 'anomalies', bracketLow: '', bracketHigh: '' });
        line.title = `seed ${search.anomalies.seed}, below ${formatNumber(search.anomalies.below)} of the `
          + `neighbours' best, at most ${search.anomalies.maxMinutes} min`;
        return;
      }
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

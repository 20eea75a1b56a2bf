// The curves of one experiment: bandwidth vs message size, throughput and message rate vs
// threads, and the runs table. Refreshed every 2 s while the experiment is queued or running.
import { getCurve, getExperiment, listRuns } from './api.js';
import { destroyAllCharts, destroyChart, drawLineChart } from './charts.js';
import { ACTIVE_STATUSES, h, progressBar, statusBadge } from './dom.js';
import {
  bytesPerSecondToGbit, formatSeries, formatTime, messagesPerSecondToMillions,
} from './format.js';
import { refreshLoop } from './refresh.js';
import { runsTable } from './runs.js';
import { cancelButton } from './cancel.js';
import { compareHash } from './compare-picker.js';
import { cloneIntoNextSubmit } from './submit.js';

const CURVES = [
  {
    name: 'bandwidthVsSize',
    canvasId: 'chart-bw-size',
    title: 'Bandwidth vs message size',
    query: { x: 'msg_size', y: 'bw_avg_bps', series: 'threads' },
    toUnit: bytesPerSecondToGbit,
    unit: 'Gbit/s',
    xKind: 'size',
    xTitle: 'Message size (bytes, log2)',
    yTitle: 'Bandwidth (Gbit/s)',
  },
  {
    name: 'throughputVsThreads',
    canvasId: 'chart-tput-threads',
    title: 'Throughput vs threads',
    query: { x: 'threads', y: 'bw_avg_bps', series: 'msg_size' },
    toUnit: bytesPerSecondToGbit,
    unit: 'Gbit/s',
    xKind: 'count',
    xTitle: 'Threads',
    yTitle: 'Throughput (Gbit/s)',
  },
  {
    name: 'msgRateVsThreads',
    canvasId: 'chart-rate-threads',
    title: 'Message rate vs threads',
    query: { x: 'threads', y: 'msg_rate', series: 'msg_size' },
    toUnit: messagesPerSecondToMillions,
    unit: 'Mmsg/s',
    xKind: 'count',
    xTitle: 'Threads',
    yTitle: 'Message rate (Mmsg/s)',
  },
];

/** Curve points ({series, x, y, n, min, max}) → one series per value, y in display units. */
export function toSeries(curve, toUnit) {
  const bySeries = new Map();
  for (const point of curve.points ?? []) {
    if (!bySeries.has(point.series)) bySeries.set(point.series, []);
    bySeries.get(point.series).push({
      x: point.x,
      y: toUnit(point.y),
      min: toUnit(point.min ?? point.y),
      max: toUnit(point.max ?? point.y),
      n: point.n ?? 1,
    });
  }
  const compare = (a, b) => (typeof a === 'number' && typeof b === 'number'
    ? a - b : String(a).localeCompare(String(b)));
  return [...bySeries.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([value, points]) => ({
      value,
      label: formatSeries(curve.series, value),
      points: points.sort((a, b) => a.x - b.x),
    }));
}

function chartCard(curve) {
  return h('figure', { class: 'card chart-card' },
    h('figcaption', {}, curve.title),
    h('div', { class: 'chart-box is-empty' },
      h('canvas', { id: curve.canvasId, 'aria-label': curve.title, role: 'img' }),
      h('p', { class: 'chart-empty' }, 'Loading…')));
}

function drawCurve(container, curve, data, emptyText) {
  const canvas = container.querySelector(`#${curve.canvasId}`);
  const series = data ? toSeries(data, curve.toUnit) : [];
  const box = canvas.parentElement;
  box.classList.toggle('is-empty', series.length === 0);
  if (series.length === 0) {
    box.querySelector('.chart-empty').textContent = emptyText;
    destroyChart(curve.name);
    return;
  }
  drawLineChart(curve.name, canvas, {
    series, xKind: curve.xKind, xTitle: curve.xTitle, yTitle: curve.yTitle, unit: curve.unit,
  });
}

function summaryLine(experiment) {
  return h('div', { class: 'summary-line' },
    statusBadge(experiment.status),
    progressBar(experiment),
    experiment.runsFailed > 0 && h('span', { class: 'failed' }, `${experiment.runsFailed} failed`),
    h('span', { class: 'time' }, `created ${formatTime(experiment.createdAt)}`),
    experiment.finishedAt && h('span', { class: 'time' }, `finished ${formatTime(experiment.finishedAt)}`));
}

/** Cancel while it runs, clone its matrix into the submit box, compare it with another. */
function actionButtons(experiment, refresh) {
  const clone = h('button', {
    type: 'button',
    id: 'clone-matrix',
    disabled: !experiment.matrix,
    title: 'Copy this matrix into the submit box of the experiments page',
    onclick: () => {
      cloneIntoNextSubmit(experiment.matrix, experiment.id);
      window.location.hash = '#/';
    },
  }, 'Clone matrix');
  return [
    cancelButton(experiment, refresh),
    clone,
    h('a', { id: 'compare-with', class: 'button-link', href: compareHash({ candidate: experiment.id }) },
      'Compare with…'),
  ];
}

/** Renders experiment `id` into `container`; returns the function that tears it down. */
export function mountCurves(container, id) {
  let mounted = true;
  const title = h('h2', {}, `Experiment #${id}`);
  const actions = h('div', { class: 'header-actions' });
  const summary = h('div', {});
  const matrix = h('div', {});
  const runs = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  container.replaceChildren(h('section', { id: 'curves', class: 'experiment-view', dataset: { experimentId: id } },
    h('div', { class: 'card header' },
      h('a', { href: '#/', class: 'back' }, '← Experiments'),
      h('div', { class: 'title-row' }, title, actions), summary, matrix),
    h('div', { class: 'charts' }, CURVES.map(chartCard)),
    h('section', { class: 'card' }, h('h2', {}, 'Runs'), runs)));

  let loop = null;
  const refresh = () => loop?.now();
  loop = refreshLoop(`experiment-${id}`, async () => {
    const [experiment, runList] = await Promise.all([getExperiment(id), listRuns(id)]);
    const anyFinished = runList.some((run) => run.status === 'FINISHED');
    const curves = anyFinished
      ? await Promise.all(CURVES.map((curve) => getCurve(id, curve.query)))
      : CURVES.map(() => null);
    if (!mounted) return false;
    title.replaceChildren(experiment.name, ' ', h('span', { class: 'muted' }, `#${experiment.id}`));
    summary.replaceChildren(summaryLine(experiment));
    actions.replaceChildren(...actionButtons(experiment, refresh).filter(Boolean));
    if (experiment.matrix && !matrix.hasChildNodes()) {
      matrix.append(h('details', { class: 'matrix' }, h('summary', {}, 'Matrix'),
        h('pre', {}, JSON.stringify(experiment.matrix, null, 2))));
    }
    const running = ACTIVE_STATUSES.has(experiment.status);
    const emptyText = running ? 'No finished runs yet.' : 'No finished runs.';
    CURVES.forEach((curve, i) => drawCurve(container, curve, curves[i], emptyText));
    runs.replaceChildren(runsTable(runList));
    return running;
  });

  return () => {
    mounted = false;
    loop.stop();
    destroyAllCharts();
  };
}

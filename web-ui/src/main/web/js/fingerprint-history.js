// A fingerprint's history, #/fingerprints/{fingerprint}?metric=…: one configuration on one host (its
// parameters + host facts) across experiments over time. Every run's value as a point, and each
// experiment's median with the min–max band of its runs (n), dated by when they finished.
import { getFingerprintHistory } from './api.js';
import { clearError, showError } from './banner.js';
import { chartCard, showChart } from './chart-card.js';
import { destroyAllCharts } from './charts.js';
import { h } from './dom.js';
import { formatTime } from './format.js';
import { formatMetric, METRICS, metricInfo, metricTitle } from './metrics.js';
import { orderParams, paramList } from './params.js';

const NAME = 'fingerprintHistory';

export function fingerprintHash(fingerprint, metric) {
  const query = metric ? `?${new URLSearchParams({ metric })}` : '';
  return `#/fingerprints/${encodeURIComponent(fingerprint)}${query}`;
}

const epochMs = (iso) => new Date(iso).getTime();

/** The runs as points only, the experiments' medians as a line with their spread over runs as its band. */
export function historySeries(history) {
  const { toUnit } = metricInfo(history.metric, history.unit);
  const runs = (history.runs ?? []).filter((run) => run.finishedAt && run.value !== null && run.value !== undefined);
  const experiments = (history.experiments ?? []).filter((e) => e.finishedAt && e.median !== null && e.median !== undefined);
  return [
    {
      label: 'each run',
      showLine: false,
      pointRadius: 4,
      colorIndex: 1,
      points: runs.map((run) => ({
        x: epochMs(run.finishedAt), y: toUnit(run.value), n: 1, runId: run.runId, experimentId: run.experimentId,
      })),
    },
    {
      label: 'median of each experiment\'s runs',
      colorIndex: 0,
      points: experiments.map((e) => ({
        x: epochMs(e.finishedAt), y: toUnit(e.median), min: toUnit(e.min ?? e.median), max: toUnit(e.max ?? e.median),
        n: e.n, experimentId: e.experimentId,
      })),
    },
  ];
}

function experimentsTable(history) {
  const runsOf = new Map();
  (history.runs ?? []).forEach((run) => runsOf.set(run.experimentId, [...(runsOf.get(run.experimentId) ?? []), run]));
  const metric = history.metric;
  return h('div', { class: 'table-scroll' }, h('table', { id: 'fingerprint-experiments', class: 'grid' },
    h('thead', {}, h('tr', {}, h('th', {}, 'Experiment'), h('th', {}, 'Finished'), h('th', { class: 'num' }, 'n'),
      ['median', 'min', 'max'].map((label) => h('th', { class: 'num' }, `${label} (${metricInfo(metric, history.unit).unit})`)),
      h('th', {}, 'Runs'))),
    h('tbody', {}, [...(history.experiments ?? [])].reverse().map((e) => h('tr', { dataset: { experimentId: e.experimentId } },
      h('td', {}, h('a', { href: `#/experiments/${e.experimentId}` }, e.experimentName ?? 'experiment', ' ',
        h('span', { class: 'muted' }, `#${e.experimentId}`))),
      h('td', { class: 'time' }, formatTime(e.finishedAt)),
      h('td', { class: 'num' }, e.n),
      [e.median, e.min, e.max].map((value) => h('td', { class: 'num' }, formatMetric(metric, value))),
      h('td', { class: 'wrap' }, (runsOf.get(e.experimentId) ?? []).map((run, i) => [i ? ', ' : '',
        h('a', { href: `#/runs/${run.runId}`, title: formatMetric(metric, run.value) }, `#${run.runId}`)])))))));
}

/** The metrics the fingerprint's runs measured (the server says which), the one drawn selected. */
function metricSelect(measured, current, onChange) {
  const names = measured?.length ? [...measured] : Object.keys(METRICS);
  if (current && !names.includes(current)) names.unshift(current);
  const select = h('select', { id: 'history-metric', title: 'The run-level metric drawn', onchange: onChange },
    names.map((name) => h('option', { value: name }, metricTitle(name))));
  if (current) select.value = current;
  return select;
}

/** Renders the history of `fingerprint` into `container`; returns the function that tears it down. */
export function mountFingerprintHistory(container, fingerprint, query) {
  let mounted = true;
  let metric = query.get('metric') ?? '';
  const title = h('h2', {}, 'Fingerprint ', h('code', { title: fingerprint }, fingerprint.slice(0, 12)));
  const about = h('div', {});
  const controls = h('span', { class: 'series-by' });
  const card = chartCard({
    name: NAME, canvasId: 'chart-fingerprint-history', title: 'Over time', controls, className: 'wide',
  });
  const table = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  container.replaceChildren(h('section', { id: 'fingerprint-history', class: 'history-view', dataset: { fingerprint } },
    h('div', { class: 'card header' }, h('a', { href: '#/history', class: 'back' }, '← History'), title, about),
    h('div', { class: 'charts' }, card),
    h('section', { class: 'card' }, h('h2', {}, 'Experiments'), table)));

  async function load() {
    try {
      const history = await getFingerprintHistory(fingerprint, metric);
      if (!mounted) return;
      clearError('fingerprint-history');
      metric = history.metric;
      const facts = Object.entries(history.host ?? {}).filter(([, value]) => value !== null && value !== undefined);
      about.replaceChildren(
        h('p', { class: 'fixed-params', id: 'fingerprint-params' }, 'Parameters: ',
          paramList(orderParams(Object.keys(history.params ?? {})).map((name) => [name, history.params[name]]))),
        h('p', { class: 'fixed-params', id: 'fingerprint-host' }, 'Host: ',
          paramList(facts.map(([name, value]) => [name, typeof value === 'object' ? JSON.stringify(value) : value]))));
      controls.replaceChildren('metric ', metricSelect(history.metrics, metric, (event) => {
        metric = event.target.value;
        window.history.replaceState(null, '', fingerprintHash(fingerprint, metric));
        load();
      }));
      const label = metricTitle(metric, history.unit);
      card.querySelector('.chart-title').textContent = `${metricInfo(metric, history.unit).label} over time`;
      showChart(card, NAME, {
        series: historySeries(history),
        colorCount: 2,
        xKind: 'time',
        xTitle: 'Finished (local time)',
        yTitle: label,
        unit: metricInfo(metric, history.unit).unit,
      }, 'No finished run has this metric.');
      table.replaceChildren(experimentsTable(history));
    } catch (error) {
      if (!mounted) return;
      showError('fingerprint-history', error);
      table.replaceChildren(h('p', { class: 'empty' }, 'No history: see the error above.'));
    }
  }
  load();
  return () => {
    mounted = false;
    clearError('fingerprint-history');
    destroyAllCharts();
  };
}

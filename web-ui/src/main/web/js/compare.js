// The compare page (see compare-modes.js for what it compares): host facts and parameters that
// differ, the paired points with their change, p-value and verdict, the NIC counters that differ, and
// the overlaid curves.
import { listExperiments } from './api.js';
import { clearError, showError } from './banner.js';
import { destroyAllCharts } from './charts.js';
import { compareChartCard, drawCompareChart } from './compare-chart.js';
import { MODES, modeOf } from './compare-modes.js';
import { compareHash, comparePicker } from './compare-picker.js';
import { counterChangesTable } from './compare-counters.js';
import { comparisonTable, withoutBaselineList } from './compare-table.js';
import { h } from './dom.js';
import { formatParam } from './format.js';

const DEFAULT_ALPHA = '0.01';
const DEFAULT_THRESHOLD = '5';

function factValues(values) {
  return values?.length ? values.join(', ') : '(not reported)';
}

/** The warning that like is not compared with like; empty and hidden when both sides agree. */
function renderMismatches(box, hostMismatches = [], paramMismatches = []) {
  const items = [
    ...hostMismatches.map((m) => h('li', { dataset: { fact: m.fact } },
      h('code', {}, m.fact), `: ${factValues(m.baseline)} → ${factValues(m.candidate)}`)),
    ...paramMismatches.map((m) => h('li', { dataset: { param: m.param } },
      'parameter ', h('code', {}, m.param), `: ${formatParam(m.param, m.baseline)} → ${formatParam(m.param, m.candidate)}`)),
  ];
  box.hidden = items.length === 0;
  box.replaceChildren(...(items.length ? [
    h('strong', {}, 'The fingerprints differ (parameters or host): like is not compared with like.'),
    h('ul', {}, items)] : []));
}

function numberInput(id, label, value, attributes) {
  const input = h('input', { id, type: 'number', value, ...attributes });
  return [h('label', {}, h('span', {}, label), input), input];
}

/** Renders the comparison into `container`; returns the function that tears it down. */
export function mountCompare(container, query) {
  let mounted = true;
  let sequence = 0;
  const mode = modeOf(query);
  const spec = MODES[mode];
  const [alphaLabel, alpha] = numberInput('compare-alpha', 'α', query.get('alpha') ?? DEFAULT_ALPHA,
    { min: 0, max: 1, step: 'any', title: 'Significance level of the Mann–Whitney test' });
  const [thresholdLabel, threshold] = numberInput('compare-threshold', 'threshold %',
    query.get('threshold') ?? DEFAULT_THRESHOLD,
    { min: 0, step: 'any', title: 'Smallest change of the cycle median, in %, that counts' });
  const settings = () => ({ alpha: alpha.value, threshold: threshold.value });
  const picker = mode === 'experiments' ? comparePicker({
    initial: { baseline: query.get('baseline'), candidate: query.get('candidate') }, extraParams: settings,
  }) : null;

  const sides = h('p', { class: 'compare-sides' });
  const mismatches = h('div', { id: 'host-mismatches', class: 'warning-box', role: 'note', hidden: true });
  const ready = spec.ready(query);
  const points = h('div', {}, h('p', { class: 'empty' }, ready ? 'Loading…' : 'Pick a baseline and a candidate, then Compare.'));
  const chart = compareChartCard(mode);
  container.replaceChildren(h('section', { id: 'compare', class: 'compare-view', dataset: { mode } },
    h('div', { class: 'card header' },
      h('a', { href: mode === 'experiments' ? '#/' : '#/history', class: 'back' }, mode === 'experiments' ? '← Experiments' : '← History'),
      h('h2', {}, spec.title), sides,
      h('div', { class: 'compare-controls' }, picker?.form,
        h('form', { class: 'compare-settings', onsubmit: (event) => event.preventDefault() }, alphaLabel, thresholdLabel))),
    mismatches,
    ready && chart,
    h('section', { class: 'card' }, h('h2', {}, 'Points'), points)));

  if (picker) {
    listExperiments().then((list) => mounted && picker.update(list))
      .catch((error) => showError('compare-experiments', error));
  }
  const teardown = () => {
    mounted = false;
    ['compare', 'compare-curves', 'compare-experiments'].forEach(clearError);
    destroyAllCharts();
  };
  if (!ready) return teardown;

  async function loadComparison() {
    const mine = ++sequence;
    const isCurrent = () => mounted && mine === sequence;
    try {
      const comparison = await spec.load(query, settings());
      if (!isCurrent()) return;
      clearError('compare');
      document.title = `qplab · compare ${spec.label(query)}`;
      sides.replaceChildren(...spec.sides(comparison));
      renderMismatches(mismatches, comparison.hostMismatches, comparison.paramMismatches);
      points.replaceChildren(...[comparisonTable(comparison, { baselineRuns: mode === 'baselines' }),
        withoutBaselineList(comparison.withoutBaseline), counterChangesTable(comparison)].filter(Boolean));
      drawCompareChart(chart, mode, query, comparison, isCurrent)
        .then(() => clearError('compare-curves'))
        .catch((error) => { if (isCurrent()) showError('compare-curves', error); });
    } catch (error) {
      if (!isCurrent()) return;
      showError('compare', error);
      points.replaceChildren(h('p', { class: 'empty' }, 'No comparison: see the error above.'));
    }
  }

  function settingsChanged() {
    // Keep the link shareable without a hashchange, which would mount the page afresh.
    const params = Object.fromEntries(query.entries());
    window.history.replaceState(null, '', compareHash({ ...params, ...settings() }));
    loadComparison();
  }
  alpha.addEventListener('change', settingsChanged);
  threshold.addEventListener('change', settingsChanged);
  loadComparison();
  return teardown;
}

// The comparison of two experiments, #/compare?baseline=A&candidate=B[&alpha=…][&threshold=…]:
// host facts that differ, the paired points with their verdicts, and the bandwidth overlay.
import { compareExperiments, listExperiments } from './api.js';
import { clearError, showError } from './banner.js';
import { destroyAllCharts } from './charts.js';
import { compareChartCard, drawCompareChart, loadCompareCurves } from './compare-chart.js';
import { compareHash, comparePicker } from './compare-picker.js';
import { comparisonTable } from './compare-table.js';
import { h } from './dom.js';

const DEFAULT_ALPHA = '0.01';
const DEFAULT_THRESHOLD = '5';

function factValues(values) {
  return values?.length ? values.join(', ') : '(not reported)';
}

/** The warning that like is not compared with like; empty and hidden when the hosts agree. */
function renderMismatches(box, mismatches) {
  box.hidden = !mismatches?.length;
  box.replaceChildren(...(mismatches?.length ? [
    h('strong', {}, 'Host facts differ between the two experiments:'),
    h('ul', {}, mismatches.map((m) => h('li', { dataset: { fact: m.fact } },
      h('code', {}, m.fact), `: ${factValues(m.baseline)} → ${factValues(m.candidate)}`,
      ' — like is not compared with like'))),
  ] : []));
}

function sideLink(role, side) {
  return h('span', { class: `side side-${role}` }, h('span', { class: 'muted' }, `${role} `),
    h('a', { href: `#/experiments/${side.experimentId}` }, side.name, ' ',
      h('span', { class: 'muted' }, `#${side.experimentId}`)));
}

function numberInput(id, label, value, attributes) {
  const input = h('input', { id, type: 'number', value, ...attributes });
  return [h('label', {}, h('span', {}, label), input), input];
}

/** Renders the comparison into `container`; returns the function that tears it down. */
export function mountCompare(container, query) {
  let mounted = true;
  let sequence = 0;
  const baselineId = query.get('baseline');
  const candidateId = query.get('candidate');
  const [alphaLabel, alpha] = numberInput('compare-alpha', 'α', query.get('alpha') ?? DEFAULT_ALPHA,
    { min: 0, max: 1, step: 'any', title: 'Significance level of the Mann–Whitney test' });
  const [thresholdLabel, threshold] = numberInput('compare-threshold', 'threshold %',
    query.get('threshold') ?? DEFAULT_THRESHOLD,
    { min: 0, step: 'any', title: 'Smallest change of the cycle median, in %, that counts' });
  const settings = () => ({ alpha: alpha.value, threshold: threshold.value });
  const picker = comparePicker({
    initial: { baseline: baselineId, candidate: candidateId }, extraParams: settings,
  });

  const title = h('h2', {}, 'Compare two experiments');
  const sides = h('p', { class: 'compare-sides' });
  const mismatches = h('div', { id: 'host-mismatches', class: 'warning-box', role: 'note', hidden: true });
  const points = h('div', {}, h('p', { class: 'empty' },
    baselineId && candidateId ? 'Loading…' : 'Pick a baseline and a candidate, then Compare.'));
  const chart = compareChartCard();
  container.replaceChildren(h('section', { id: 'compare', class: 'compare-view' },
    h('div', { class: 'card header' },
      h('a', { href: '#/', class: 'back' }, '← Experiments'), title, sides,
      h('div', { class: 'compare-controls' }, picker.form,
        h('form', { class: 'compare-settings', onsubmit: (event) => event.preventDefault() },
          alphaLabel, thresholdLabel))),
    mismatches,
    baselineId && candidateId && chart,
    h('section', { class: 'card' }, h('h2', {}, 'Points'), points)));

  listExperiments().then((list) => mounted && picker.update(list))
    .catch((error) => showError('compare-experiments', error));
  if (!baselineId || !candidateId) return () => { mounted = false; clearError('compare-experiments'); };

  async function loadComparison() {
    const mine = ++sequence;
    try {
      const comparison = await compareExperiments(baselineId, candidateId, settings());
      if (!mounted || mine !== sequence) return;
      clearError('compare');
      document.title = `qplab · compare #${baselineId} → #${candidateId}`;
      sides.replaceChildren(sideLink('baseline', comparison.baseline), h('span', { class: 'arrow' }, '→'),
        sideLink('candidate', comparison.candidate));
      renderMismatches(mismatches, comparison.hostMismatches);
      points.replaceChildren(comparisonTable(comparison));
    } catch (error) {
      if (!mounted || mine !== sequence) return;
      showError('compare', error);
      points.replaceChildren(h('p', { class: 'empty' }, 'No comparison: see the error above.'));
    }
  }

  function settingsChanged() {
    // Keep the link shareable without a hashchange, which would mount the page afresh.
    window.history.replaceState(null, '',
      compareHash({ baseline: baselineId, candidate: candidateId, ...settings() }));
    loadComparison();
  }
  alpha.addEventListener('change', settingsChanged);
  threshold.addEventListener('change', settingsChanged);

  loadComparison();
  loadCompareCurves(baselineId, candidateId)
    .then((curves) => { if (mounted) { clearError('compare-curves'); drawCompareChart(chart, curves); } })
    .catch((error) => {
      if (!mounted) return;
      showError('compare-curves', error);
      chart.querySelector('.chart-empty').textContent = 'No curves: see the error above.';
    });

  return () => {
    mounted = false;
    ['compare', 'compare-curves', 'compare-experiments'].forEach(clearError);
    destroyAllCharts();
  };
}

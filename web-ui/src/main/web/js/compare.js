// The compare page (see compare-modes.js for what it compares): host facts and parameters that
// differ, the paired points with their verdict over runs (compare-table.js), the NIC counters that
// differ, and the overlaid curves. Two experiments may be paired across named parameters (&across=).
import { listExperiments } from './api.js';
import { clearError, showError } from './banner.js';
import { destroyAllCharts } from './charts.js';
import { compareCharts } from './compare-chart.js';
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

function input(id, label, value, attributes) {
  const element = h('input', { id, value, ...attributes });
  return [h('label', {}, h('span', {}, label), element), element];
}

/** What is wrong with the settings, in words, or null: alpha in (0, 0.5], threshold ≥ 0 (the server's rules). */
function settingsProblem(alpha, threshold) {
  const a = Number(alpha);
  if (alpha.trim() !== '' && !(a > 0 && a <= 0.5)) return `α must be in (0, 0.5], got ${alpha}`;
  const t = Number(threshold);
  if (threshold.trim() !== '' && !(t >= 0)) return `the threshold must be ≥ 0 %, got ${threshold}`;
  return null;
}

/** The parameter names of a comparison's points, paired or not: what `across` may name. */
function parameterNames(comparison) {
  const lists = [comparison.points?.map((p) => p.params), comparison.baselineOnly, comparison.candidateOnly];
  return [...new Set(lists.flatMap((list) => (list ?? []).flatMap((params) => Object.keys(params ?? {}))))].sort();
}

/** Renders the comparison into `container`; returns the function that tears it down. */
export function mountCompare(container, query) {
  let mounted = true;
  let sequence = 0;
  const mode = modeOf(query);
  const spec = MODES[mode];
  const [alphaLabel, alpha] = input('compare-alpha', 'α', query.get('alpha') ?? DEFAULT_ALPHA, {
    type: 'number', min: 0, max: 0.5, step: 'any',
    title: "Significance level of the test over runs (Welch's t on log run values), in (0, 0.5]",
  });
  const [thresholdLabel, threshold] = input('compare-threshold', 'threshold %', query.get('threshold') ?? DEFAULT_THRESHOLD, {
    type: 'number', min: 0, step: 'any', title: 'Smallest change of the verdict\'s metric, in %, that counts as one',
  });
  const acrossNames = h('datalist', { id: 'compare-across-names' });
  const [acrossLabel, across] = mode === 'experiments' ? input('compare-across', 'across', query.get('across') ?? '', {
    type: 'text', list: 'compare-across-names', placeholder: 'parameter, …', size: 18,
    title: 'Pair points equal in every parameter except these (comma-separated), e.g. tx_depth',
  }) : [null, null];
  const settingsError = h('p', { id: 'compare-settings-error', class: 'settings-error', hidden: true });
  const acrossHint = h('p', { id: 'across-hint', class: 'across-hint', hidden: true });
  const settings = () => ({ alpha: alpha.value, threshold: threshold.value, ...(across ? { across: across.value } : {}) });
  const picker = mode === 'experiments' ? comparePicker({
    initial: { baseline: query.get('baseline'), candidate: query.get('candidate') }, extraParams: settings,
  }) : null;

  const sides = h('p', { class: 'compare-sides' });
  const mismatches = h('div', { id: 'host-mismatches', class: 'warning-box', role: 'note', hidden: true });
  const ready = spec.ready(query);
  const points = h('div', {}, h('p', { class: 'empty' }, ready ? 'Loading…' : 'Pick a baseline and a candidate, then Compare.'));
  const charts = compareCharts(mode);
  container.replaceChildren(h('section', { id: 'compare', class: 'compare-view', dataset: { mode } },
    h('div', { class: 'card header' },
      h('a', { href: mode === 'experiments' ? '#/' : '#/history', class: 'back' }, mode === 'experiments' ? '← Experiments' : '← History'),
      h('h2', {}, spec.title), sides,
      h('div', { class: 'compare-controls' }, picker?.form,
        h('form', { class: 'compare-settings', onsubmit: (event) => event.preventDefault() },
          alphaLabel, thresholdLabel, acrossLabel, acrossNames)),
      settingsError, acrossHint),
    mismatches,
    ready && charts.element,
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

  /** Without paired points, the server names the parameters whose values the sides do not share: offer them. */
  function showAcrossHint(comparison) {
    if (!across) return;
    acrossNames.replaceChildren(...parameterNames(comparison).map((name) => h('option', { value: name })));
    const suggested = comparison.suggestAcross ?? [];
    const unpaired = (comparison.points ?? []).length === 0;
    const names = (list) => h('span', {}, list.map((name, i) => [i ? ', ' : '', h('code', {}, name)]));
    if (unpaired && suggested.length > 0 && across.value.trim() === '') {
      across.value = suggested.join(',');
      acrossHint.replaceChildren('No paired points: the two sides never share a value of ', names(suggested), '. ',
        h('button', { type: 'button', id: 'apply-across', class: 'secondary', onclick: settingsChanged },
          `Pair across ${suggested.join(', ')}`));
      acrossHint.hidden = false;
    } else if (!unpaired && (comparison.across ?? []).length > 0) {
      acrossHint.replaceChildren('Points paired across ', names(comparison.across),
        ': equal in every other parameter; the highlighted columns show baseline → candidate.');
      acrossHint.hidden = false;
    } else {
      acrossHint.hidden = true;
    }
  }

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
      showAcrossHint(comparison);
      charts.draw(query, comparison, isCurrent)
        .then(() => clearError('compare-curves'))
        .catch((error) => { if (isCurrent()) showError('compare-curves', error); });
    } catch (error) {
      if (!isCurrent()) return;
      showError('compare', error);
      points.replaceChildren(h('p', { class: 'empty' }, 'No comparison: see the error above.'));
    }
  }

  function settingsChanged() {
    const problem = settingsProblem(alpha.value, threshold.value);
    settingsError.textContent = problem ?? '';
    settingsError.hidden = !problem;
    if (problem) return;
    // Keep the link shareable without a hashchange, which would mount the page afresh.
    const params = Object.fromEntries(query.entries());
    const next = { ...params, ...settings() };
    window.history.replaceState(null, '', compareHash(next));
    Object.entries(next).forEach(([name, value]) => query.set(name, value));
    loadComparison();
  }
  [alpha, threshold, across].filter(Boolean).forEach((element) => element.addEventListener('change', settingsChanged));
  loadComparison();
  return teardown;
}

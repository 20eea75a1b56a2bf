// History, #/history: compare experiments or runs, check an experiment against the baselines of
// its fingerprints, and the baselines marked so far (a run per fingerprint: parameters + host).
import { listBaselines, listExperiments, unmarkBaseline } from './api.js';
import { clearError, showError } from './banner.js';
import { compareHash, comparePicker } from './compare-picker.js';
import { h } from './dom.js';
import { formatTime } from './format.js';
import { fixedParamsLine, paramList, splitParams } from './params.js';
import { refreshLoop } from './refresh.js';

function runPicker(initialCandidate) {
  const input = (id, label, value) => h('label', {}, h('span', {}, label),
    h('input', { id, type: 'number', min: 1, step: 1, required: true, value: value ?? '' }));
  return h('form', {
    id: 'compare-runs',
    class: 'compare-pick',
    onsubmit: (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      window.location.hash = compareHash({
        baselineRun: form.querySelector('#baseline-run').value, candidateRun: form.querySelector('#candidate-run').value,
      });
    },
  }, input('baseline-run', 'Baseline run #', null), input('candidate-run', 'Candidate run #', initialCandidate),
  h('button', { type: 'submit' }, 'Compare runs'));
}

function againstBaselinesPicker() {
  const select = h('select', { id: 'against-experiment' });
  const form = h('form', {
    class: 'compare-pick',
    onsubmit: (event) => {
      event.preventDefault();
      if (select.value) window.location.hash = compareHash({ experiment: select.value });
    },
  }, h('label', {}, h('span', {}, 'Experiment'), select), h('button', { type: 'submit', id: 'against-go' }, 'Check'));
  return {
    form,
    update(experiments) {
      if (select.options.length) return;
      select.replaceChildren(...[...experiments].sort((a, b) => b.id - a.id)
        .map((e) => h('option', { value: e.id }, `${e.name} #${e.id}`)));
    },
  };
}

function baselineRow(baseline, varying, onChange) {
  const unmark = h('button', {
    type: 'button',
    class: 'cancel',
    onclick: async () => {
      unmark.disabled = true;
      try {
        await unmarkBaseline(baseline.runId);
        clearError('baselines');
      } catch (error) {
        showError('baselines', error);
      }
      onChange();
    },
  }, 'Unmark');
  const host = [['kernel', baseline.host.kernel], ['cpu', baseline.host.cpu_model], ['rdma', baseline.host.rdma_devices]]
    .filter(([, value]) => value !== null && value !== undefined);
  return h('tr', { id: `baseline-${baseline.runId}`, dataset: { fingerprint: baseline.fingerprint } },
    h('td', {}, h('code', { title: baseline.fingerprint }, baseline.fingerprint.slice(0, 12))),
    h('td', { class: 'num' }, h('a', { href: `#/runs/${baseline.runId}` }, `#${baseline.runId}`)),
    h('td', {}, h('a', { href: `#/experiments/${baseline.experimentId}` }, `${baseline.experimentName} #${baseline.experimentId}`)),
    h('td', {}, paramList(varying.map((name) => [name, baseline.params[name]]))),
    h('td', { class: 'wrap' }, paramList(host)),
    h('td', { class: 'time' }, formatTime(baseline.markedAt)),
    h('td', { class: 'actions' }, h('a', { class: 'button-link', href: compareHash({ run: baseline.runId }) }, 'Check'), ' ', unmark));
}

function baselinesTable(baselines, onChange) {
  if (baselines.length === 0) {
    return h('p', { class: 'empty' }, 'No baselines yet: mark a finished run (☆ baseline) in its experiment or on its page.');
  }
  const { varying, fixed } = splitParams(baselines);
  return h('div', {}, fixedParamsLine('Every baseline', fixed),
    h('div', { class: 'table-scroll' }, h('table', { id: 'baselines', class: 'grid' },
      h('thead', {}, h('tr', {}, ['Fingerprint', 'Run', 'Experiment', 'Parameters', 'Host', 'Marked', '']
        .map((text) => h('th', {}, text)))),
      h('tbody', {}, baselines.map((b) => baselineRow(b, varying, onChange))))));
}

/** Renders the page into `container`; returns the function that tears it down. */
export function mountHistory(container, query) {
  let mounted = true;
  const experiments = comparePicker();
  const against = againstBaselinesPicker();
  const baselines = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  container.replaceChildren(h('section', { id: 'history', class: 'history-view' },
    h('div', { class: 'history-pickers' },
      h('section', { class: 'card' }, h('h2', {}, 'Compare two experiments'), experiments.form),
      h('section', { class: 'card' }, h('h2', {}, 'Compare two runs'), runPicker(query.get('candidateRun'))),
      h('section', { class: 'card' }, h('h2', {}, 'Against the baselines'), against.form)),
    h('section', { class: 'card' }, h('h2', {}, 'Baselines, one run per fingerprint (parameters + host)'), baselines)));

  listExperiments().then((list) => {
    if (!mounted) return;
    experiments.update(list);
    against.update(list);
  }).catch((error) => showError('history', error));
  let loop = null;
  loop = refreshLoop('baselines', async () => {
    const list = await listBaselines();
    if (mounted) baselines.replaceChildren(baselinesTable(list, () => loop.now()));
    return false;
  });
  return () => {
    mounted = false;
    loop.stop();
    clearError('history');
  };
}

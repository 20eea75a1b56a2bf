// The "Compare" card of the experiments page: pick a baseline and a candidate, go to #/compare.
import { h } from './dom.js';

export function compareHash(baseline, candidate) {
  return `#/compare?${new URLSearchParams({ baseline, candidate })}`;
}

function experimentOptions(select, experiments, wanted) {
  const current = select.value || wanted;
  select.replaceChildren(...experiments.map((e) => h('option', { value: e.id }, `${e.name} #${e.id}`)));
  if (experiments.some((e) => String(e.id) === String(current))) select.value = String(current);
}

/** → {element, update(experiments)}; update keeps what the user has picked. */
export function comparePicker() {
  const baseline = h('select', { id: 'compare-baseline' });
  const candidate = h('select', { id: 'compare-candidate' });
  const go = h('button', { type: 'submit', id: 'compare-go', disabled: true }, 'Compare');
  const element = h('section', { class: 'card compare-picker' },
    h('h2', {}, 'Compare'),
    h('form', {
      onsubmit: (event) => {
        event.preventDefault();
        if (baseline.value && candidate.value) {
          window.location.hash = compareHash(baseline.value, candidate.value);
        }
      },
    },
    h('label', { for: 'compare-baseline' }, 'Baseline'), baseline,
    h('label', { for: 'compare-candidate' }, 'Candidate'), candidate,
    h('div', {}, go)));

  let shown = null;
  function update(experiments) {
    const newestFirst = [...experiments].sort((a, b) => b.id - a.id);
    // The list refreshes every 2 s while something runs; rebuilding the options would close
    // a dropdown the user has open.
    const key = JSON.stringify(newestFirst.map((e) => [e.id, e.name]));
    if (key === shown) return;
    shown = key;
    // Until the user picks: the newest experiment against the one before it.
    experimentOptions(candidate, newestFirst, newestFirst[0]?.id);
    experimentOptions(baseline, newestFirst, (newestFirst[1] ?? newestFirst[0])?.id);
    go.disabled = newestFirst.length === 0;
  }
  return { element, update };
}

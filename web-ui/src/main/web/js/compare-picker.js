// Picking two experiments to compare: a baseline and a candidate, then #/compare?….
// Used by the "Compare" card of the experiments page and by the compare page itself.
import { h } from './dom.js';

export function compareHash(params) {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(name, value);
  }
  return `#/compare?${query}`;
}

/** The experiment before `candidateId` with the same name (a re-run), else simply the one before. */
function suggestBaseline(newestFirst, candidateId) {
  const candidate = newestFirst.find((e) => String(e.id) === String(candidateId));
  const older = candidate ? newestFirst.filter((e) => e.id < candidate.id) : newestFirst;
  const pick = older.find((e) => e.name === candidate?.name) ?? older[0]
    ?? newestFirst.find((e) => e !== candidate);
  return pick?.id;
}

function fillOptions(select, experiments, wanted) {
  const current = select.value || wanted;
  select.replaceChildren(...experiments.map((e) => h('option', { value: e.id }, `${e.name} #${e.id}`)));
  if (experiments.some((e) => String(e.id) === String(current))) select.value = String(current);
}

/**
 * → {form, update(experiments)}. `initial` preselects {baseline, candidate} ids; `extraParams`
 * adds query parameters (alpha, threshold) to the link. update keeps what the user has picked.
 */
export function comparePicker({ initial = {}, extraParams = () => ({}) } = {}) {
  const baseline = h('select', { id: 'compare-baseline' });
  const candidate = h('select', { id: 'compare-candidate' });
  const go = h('button', { type: 'submit', id: 'compare-go', disabled: true }, 'Compare');
  const form = h('form', {
    class: 'compare-pick',
    onsubmit: (event) => {
      event.preventDefault();
      if (!baseline.value || !candidate.value) return;
      window.location.hash = compareHash({
        baseline: baseline.value, candidate: candidate.value, ...extraParams(),
      });
    },
  },
  h('label', {}, h('span', {}, 'Baseline'), baseline),
  h('label', {}, h('span', {}, 'Candidate'), candidate),
  go);

  let shown = null;
  function update(experiments) {
    const newestFirst = [...experiments].sort((a, b) => b.id - a.id);
    // The list refreshes every 2 s while something runs; rebuilding the options each time
    // would close a dropdown the user has open.
    const key = JSON.stringify(newestFirst.map((e) => [e.id, e.name]));
    if (key === shown) return;
    shown = key;
    const wantedCandidate = initial.candidate ?? newestFirst[0]?.id;
    fillOptions(candidate, newestFirst, wantedCandidate);
    fillOptions(baseline, newestFirst, initial.baseline ?? suggestBaseline(newestFirst, wantedCandidate));
    go.disabled = newestFirst.length === 0;
  }
  return { form, update };
}

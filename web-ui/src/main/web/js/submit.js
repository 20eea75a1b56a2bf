// The "Submit matrix" box: the server validates the text while it is typed (a pause of 400 ms, POST
// /api/experiments/validate) and lists its violations next to it; Submit POSTs it as JSON or YAML.
import { submitMatrix, validateMatrix } from './api.js';
import { showError, clearError } from './banner.js';
import { h } from './dom.js';

const EXAMPLE = `# Every combination of the dimensions, each run \`repeats\` times.
name: quickstart
base:
  provider: tcp
  qps_per_thread: 1
  iterations: 200
dimensions:
  threads: [1, 2, 4]
  msg_size: [64, 4096, 65536]
repeats: 2
`;

// A matrix handed over by "Clone matrix" on a curves page, shown by the next submit box.
let pending = null;

/** The next submit box starts with `matrix` (an object) as JSON, named "<name> (clone)". */
export function cloneIntoNextSubmit(matrix, sourceId) {
  const copy = { ...matrix, name: `${matrix.name ?? 'experiment'} (clone)` };
  pending = { text: JSON.stringify(copy, null, 2), sourceId };
}

const VALIDATE_AFTER_MS = 400;

function violationItems(result) {
  if (result.violations.length === 0) return [h('li', {}, result.message)];
  return result.violations.map((v) => h('li', {},
    h('code', {}, v.field ?? '(matrix)'), ': ', v.message));
}

export function submitBox({ onSubmitted }) {
  const text = h('textarea', { id: 'matrix-text', spellcheck: 'false', rows: 14 });
  text.value = pending?.text ?? EXAMPLE;
  const outcome = h('p', { class: 'submit-outcome', role: 'status' });
  if (pending) {
    outcome.replaceChildren('Cloned from ', h('a', { href: `#/experiments/${pending.sourceId}` }, `#${pending.sourceId}`),
      ': edit and submit.');
    pending = null;
  }
  const violations = h('ul', { id: 'violations', class: 'violations', hidden: true });
  const validation = h('p', { id: 'validation', class: 'validation', role: 'status', 'aria-live': 'polite' });
  const button = h('button', { type: 'submit' }, 'Submit');

  function showViolations(result) {
    violations.replaceChildren(...violationItems(result));
    violations.hidden = false;
  }

  // Only the answer to the latest text counts: an earlier request may answer later.
  let sequence = 0;
  let timer = null;
  async function validate() {
    const mine = ++sequence;
    validation.dataset.state = 'checking';
    try {
      const result = await validateMatrix(text.value);
      if (mine !== sequence) return;
      clearError('validate');
      if (result.check) {
        const { runs, points, name } = result.check;
        validation.dataset.state = 'valid';
        validation.textContent = `✓ ${name}: ${runs} ${runs === 1 ? 'run' : 'runs'}`
          + (points !== runs ? ` (${points} points × repeats)` : '');
        violations.hidden = true;
        violations.replaceChildren();
      } else {
        validation.dataset.state = 'invalid';
        const count = result.violations.length || 1;
        validation.textContent = `✗ ${count} ${count === 1 ? 'problem' : 'problems'}: ${result.message}`;
        showViolations(result);
      }
    } catch (error) {
      if (mine !== sequence) return;
      validation.dataset.state = 'unknown';
      validation.textContent = '';
      showError('validate', error);
    }
  }
  text.addEventListener('input', () => {
    clearTimeout(timer);
    sequence += 1; // an answer about the text before this edit is stale
    validation.dataset.state = 'editing';
    timer = setTimeout(validate, VALIDATE_AFTER_MS);
  });

  async function submit(event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = '';
    try {
      const result = await submitMatrix(text.value);
      clearError('submit');
      if (result.experiment) {
        const { id, name } = result.experiment;
        outcome.replaceChildren('Submitted ', h('a', { href: `#/experiments/${id}` }, `${name} (#${id})`), '.');
        violations.hidden = true;
        violations.replaceChildren();
        onSubmitted(result.experiment);
      } else {
        outcome.textContent = `Rejected: ${result.message}`;
        showViolations(result);
      }
    } catch (error) {
      showError('submit', error);
    } finally {
      button.disabled = false;
    }
  }

  validate();
  return h('section', { class: 'card submit', 'data-needs': 'operator' },
    h('h2', {}, 'Submit matrix'),
    h('form', { id: 'submit-matrix', onsubmit: submit },
      h('label', { for: 'matrix-text' }, 'Matrix (YAML or JSON)'),
      text,
      validation,
      violations,
      h('div', { class: 'submit-actions' }, button, outcome)));
}

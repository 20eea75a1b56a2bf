// The "Submit matrix" box: POST the text as JSON or YAML, list the server's violations on 400.
import { submitMatrix } from './api.js';
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
  const button = h('button', { type: 'submit' }, 'Submit');

  async function submit(event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = '';
    violations.hidden = true;
    violations.replaceChildren();
    try {
      const result = await submitMatrix(text.value);
      clearError('submit');
      if (result.experiment) {
        const { id, name } = result.experiment;
        outcome.replaceChildren('Submitted ', h('a', { href: `#/experiments/${id}` }, `${name} (#${id})`), '.');
        onSubmitted(result.experiment);
      } else {
        outcome.textContent = `Rejected: ${result.message}`;
        violations.replaceChildren(...violationItems(result));
        violations.hidden = false;
      }
    } catch (error) {
      showError('submit', error);
    } finally {
      button.disabled = false;
    }
  }

  return h('section', { class: 'card submit' },
    h('h2', {}, 'Submit matrix'),
    h('form', { id: 'submit-matrix', onsubmit: submit },
      h('label', { for: 'matrix-text' }, 'Matrix (YAML or JSON)'),
      text,
      h('div', { class: 'submit-actions' }, button, outcome)),
    violations);
}

// The "Submit matrix" box: the server validates the text while it is typed (a pause of 400 ms, POST
// /api/experiments/validate) and lists its violations next to it, or its run count, estimated duration and
// warnings (hosts offline, agents that cannot run it); an edit clears what was said of the text before it. Submit
// POSTs it as JSON or YAML.
import { submitMatrix, validateMatrix } from './api.js';
import { showError, clearError } from './banner.js';
import { h } from './dom.js';
import { formatDuration } from './format.js';

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

// A message over several lines (a YAML or JSON syntax error: the parser's words, the lines and a caret under the
// spot) keeps its layout in a monospace block; a one-line message stays in the sentence.
function message(text) {
  if (!text.includes('\n')) return text;
  const [first, ...rest] = text.split('\n');
  return [first, h('pre', { class: 'syntax-caret' }, rest.join('\n'))];
}

function problemItems(list) {
  return list.map((v) => h('li', {}, h('code', {}, v.field || '(matrix)'), ': ', message(v.message)));
}

function violationItems(result) {
  if (result.violations.length === 0) return [h('li', {}, message(result.message))];
  return problemItems(result.violations);
}

/** "≈ 12 min for 36 runs" (or what is unknown), with how it was estimated. */
function estimateText(estimate, runs) {
  if (!estimate) return '';
  const runsText = `${runs} ${runs === 1 ? 'run' : 'runs'}`;
  if (estimate.seconds === null || estimate.seconds === undefined) {
    return `Estimated duration: unknown (${estimate.basis})`;
  }
  const part = estimate.unknownRuns > 0 ? `${estimate.estimatedRuns} of ${runsText}` : runsText;
  return `Estimated duration: ≈ ${formatDuration(estimate.seconds)} for ${part}`
    + `${estimate.unknownRuns > 0 ? `, ${estimate.unknownRuns} unknown` : ''} (${estimate.basis})`;
}

export function submitBox({ onSubmitted }) {
  const text = h('textarea', { id: 'matrix-text', spellcheck: 'false', rows: 14 });
  text.value = pending?.text ?? EXAMPLE;
  const outcome = h('p', { id: 'submit-outcome', class: 'submit-outcome', role: 'status' });
  if (pending) {
    outcome.replaceChildren('Cloned from ', h('a', { href: `#/experiments/${pending.sourceId}` }, `#${pending.sourceId}`),
      ': edit and submit.');
    pending = null;
  }
  const violations = h('ul', { id: 'violations', class: 'violations', hidden: true });
  const validation = h('p', { id: 'validation', class: 'validation', role: 'status', 'aria-live': 'polite' });
  const estimate = h('p', { id: 'validation-estimate', class: 'estimate', hidden: true });
  const warnings = h('ul', { id: 'warnings', class: 'warnings', hidden: true });
  const button = h('button', { type: 'submit' }, 'Submit');

  function showViolations(result) {
    violations.replaceChildren(...violationItems(result));
    violations.hidden = false;
  }

  function showWarnings(list) {
    warnings.replaceChildren(...problemItems(list ?? []));
    warnings.hidden = !list || list.length === 0;
  }

  function showEstimate(check) {
    estimate.textContent = estimateText(check?.estimate, check?.runs);
    estimate.hidden = !estimate.textContent;
  }

  // What was said about earlier text: gone as soon as the text changes.
  function clearVerdict() {
    validation.textContent = '';
    violations.hidden = true;
    violations.replaceChildren();
    showWarnings([]);
    showEstimate(null);
    if (outcome.dataset.verdict === 'rejected') {
      outcome.textContent = '';
      delete outcome.dataset.verdict;
    }
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
        showWarnings(result.check.warnings);
        showEstimate(result.check);
      } else {
        validation.dataset.state = 'invalid';
        const count = result.violations.length || 1;
        validation.textContent = `✗ ${count} ${count === 1 ? 'problem' : 'problems'}: ${result.message}`;
        showViolations(result);
        showWarnings([]);
        showEstimate(null);
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
    clearVerdict();
    timer = setTimeout(validate, VALIDATE_AFTER_MS);
  });

  async function submit(event) {
    event.preventDefault();
    button.disabled = true;
    outcome.textContent = '';
    delete outcome.dataset.verdict;
    try {
      const result = await submitMatrix(text.value);
      clearError('submit');
      if (result.experiment) {
        const { id, name } = result.experiment;
        outcome.dataset.verdict = 'submitted';
        outcome.replaceChildren('Submitted ', h('a', { href: `#/experiments/${id}` }, `${name} (#${id})`), '.');
        violations.hidden = true;
        violations.replaceChildren();
        showWarnings(result.experiment.warnings);
        onSubmitted(result.experiment);
      } else {
        outcome.dataset.verdict = 'rejected';
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
      estimate,
      warnings,
      violations,
      h('div', { class: 'submit-actions' }, button, outcome)));
}

// The matrix's expect rules, pass or fail: an experiment's verdict over its runs, a run's with each rule's result.
import { h } from './dom.js';

const WORDS = { PASS: 'PASS', FAIL: 'FAIL', NOT_JUDGED: 'NOT JUDGED', PENDING: 'PENDING', NO_BASELINE: 'NO BASELINE',
  NOT_MEASURED: 'NOT MEASURED', UNREADABLE: 'UNREADABLE' };

function badge(verdict, id) {
  return h('span', { class: `badge badge-expect-${String(verdict).toLowerCase()}`, id }, WORDS[verdict] ?? verdict);
}

function box(verdict, id, ...children) {
  return h('div', { class: verdict === 'FAIL' ? 'failure-box expect-box' : 'expect-box', id,
    role: verdict === 'FAIL' ? 'alert' : null }, ...children);
}

/** The experiment's verdict on its expect rules, with its failed or unjudged rules, each run linked; null without rules. */
export function experimentExpectations(experiment) {
  const x = experiment.expectations;
  if (!x) return null;
  const counts = [`${x.runsPassed} passed`, `${x.runsFailed} failed`, `${x.runsNotJudged} not judged`,
    x.runsPending > 0 && `${x.runsPending} to run`].filter(Boolean).join(', ');
  const failures = x.failures ?? [];
  return box(x.verdict, 'experiment-expectations',
    h('h3', {}, 'Expectations ', badge(x.verdict, 'experiment-expect-verdict'), ' ', h('span', { class: 'muted' }, counts)),
    failures.length > 0 && h('ul', {}, failures.map((f) => h('li', {},
      h('a', { href: `#/runs/${f.runId}` }, `Run #${f.runId}`), ': ', h('span', { class: 'failure-text' }, f.message)))));
}

/** Under an experiment's status in the list: its verdict on its expect rules; null without rules. */
export function experimentVerdict(experiment) {
  const x = experiment.expectations;
  if (!x) return null;
  return h('div', { class: 'expect-verdict', title: `expect rules: ${x.runsPassed} runs passed, ${x.runsFailed} failed, `
    + `${x.runsNotJudged} not judged` }, badge(x.verdict));
}

/** A runs-table cell: the run's verdict, its rules' messages in its title; '–' while it has none. */
export function expectationCell(run) {
  const x = run.expectation;
  return h('td', { class: 'expect-cell', title: x ? x.rules.map((rule) => rule.message).join('\n') : null },
    x ? badge(x.verdict) : '–');
}

/** The run's verdict on its experiment's expect rules and every rule's result; null while it has none. */
export function runExpectation(run) {
  const x = run.expectation;
  if (!x) return null;
  return box(x.verdict, 'run-expectation',
    h('h3', {}, 'Expectations ', badge(x.verdict, 'run-expect-verdict')),
    h('ul', { class: 'expect-rules' }, x.rules.map((rule) => h('li', { class: 'expect-rule' }, badge(rule.result), ' ',
      h('span', { class: 'failure-text' }, rule.message)))));
}

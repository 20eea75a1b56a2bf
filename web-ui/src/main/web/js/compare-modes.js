// What the compare page compares, by its address:
//   #/compare?baseline=A&candidate=B            two experiments, paired by parameters
//   #/compare?baselineRun=R&candidateRun=S      two runs, whatever their parameters
//   #/compare?experiment=E  or  ?run=R          an experiment or a run against the baselines of its fingerprints
import { compareExperiments, compareRuns, compareWithBaselines } from './api.js';
import { h } from './dom.js';

function experimentLink(side) {
  return h('a', { href: `#/experiments/${side.experimentId}` }, side.name, ' ', h('span', { class: 'muted' }, `#${side.experimentId}`));
}

function runLink(side) {
  return h('a', { href: `#/runs/${side.runId}` }, `run #${side.runId}`, ' ',
    h('span', { class: 'muted' }, `of ${side.name} #${side.experimentId}`));
}

function sideLink(role, side) {
  return h('span', { class: `side side-${role}` }, h('span', { class: 'muted' }, `${role} `),
    side.runId ? runLink(side) : experimentLink(side));
}

export const MODES = {
  experiments: {
    title: 'Compare two experiments',
    ready: (q) => Boolean(q.get('baseline') && q.get('candidate')),
    label: (q) => `#${q.get('baseline')} → #${q.get('candidate')}`,
    load: (q, settings) => compareExperiments(q.get('baseline'), q.get('candidate'), settings),
    sides: (c) => [sideLink('baseline', c.baseline), h('span', { class: 'arrow' }, '→'), sideLink('candidate', c.candidate)],
  },
  runs: {
    title: 'Compare two runs',
    ready: (q) => Boolean(q.get('baselineRun') && q.get('candidateRun')),
    label: (q) => `run #${q.get('baselineRun')} → run #${q.get('candidateRun')}`,
    load: (q, settings) => compareRuns(q.get('baselineRun'), q.get('candidateRun'), settings),
    sides: (c) => [sideLink('baseline', c.baseline), h('span', { class: 'arrow' }, '→'), sideLink('candidate', c.candidate)],
  },
  baselines: {
    title: 'Against the baselines of its fingerprints',
    ready: () => true,
    label: (q) => (q.get('run') ? `run #${q.get('run')}` : `#${q.get('experiment')}`) + ' against baselines',
    load: (q, settings) => compareWithBaselines(q.get('run') ? { run: q.get('run') } : { experiment: q.get('experiment') }, settings),
    sides: (c) => [h('span', { class: 'side side-baseline' }, h('span', { class: 'muted' }, 'baseline '),
      'the run marked for each fingerprint'), h('span', { class: 'arrow' }, '→'), sideLink('candidate', c.candidate)],
  },
};

export function modeOf(query) {
  if (query.has('baselineRun') || query.has('candidateRun')) return 'runs';
  if (query.has('experiment') || query.has('run')) return 'baselines';
  return 'experiments';
}

// Wiring: hash routes to pages. "#/" is the experiments list, "#/experiments/12" its curves,
// "#/compare?baseline=11&candidate=12" the comparison of two experiments.
import { initBanner } from './banner.js';
import { mountCompare } from './compare.js';
import { mountCurves } from './curves.js';
import { mountExperiments } from './experiments.js';

let unmount = null;

function route() {
  unmount?.();
  const page = document.getElementById('page');
  const hash = window.location.hash;
  const experiment = hash.match(/^#\/experiments\/(\d+)\/?$/);
  const compare = hash.match(/^#\/compare\/?(?:\?(.*))?$/);
  if (experiment) {
    document.title = `qplab · experiment ${experiment[1]}`;
    unmount = mountCurves(page, experiment[1]);
  } else if (compare) {
    document.title = 'qplab · compare';
    unmount = mountCompare(page, new URLSearchParams(compare[1] ?? ''));
  } else {
    document.title = 'qplab · experiments';
    unmount = mountExperiments(page);
  }
  window.scrollTo(0, 0);
}

initBanner();
window.addEventListener('hashchange', route);
route();

// Wiring: hash routes to pages. "#/" is the experiments list, "#/experiments/12" its curves.
import { initBanner } from './banner.js';
import { mountCurves } from './curves.js';
import { mountExperiments } from './experiments.js';

let unmount = null;

function route() {
  unmount?.();
  const page = document.getElementById('page');
  const match = window.location.hash.match(/^#\/experiments\/(\d+)\/?$/);
  if (match) {
    document.title = `qplab · experiment ${match[1]}`;
    unmount = mountCurves(page, match[1]);
  } else {
    document.title = 'qplab · experiments';
    unmount = mountExperiments(page);
  }
  window.scrollTo(0, 0);
}

initBanner();
window.addEventListener('hashchange', route);
route();

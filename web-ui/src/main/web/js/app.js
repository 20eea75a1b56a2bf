// Wiring: hash routes to pages, and the navigation's current page.
//   #/ (?status=&name=)          experiments          #/experiments/12   its curves
//   #/runs/34                    one run (live)       #/compare?…        a comparison (compare-modes.js)
//   #/history                    history, baselines   #/hosts            hosts and agents
//   #/fingerprints/ab12… (?metric=)  a fingerprint's runs over time
//   #/changes (?status=)         change points and their triage
//   #/schedules                  recurring experiments  #/schedules/7  one, its occurrences and webhook deliveries
import { initAccount } from './account.js';
import { initAlerts } from './alerts.js';
import { mountAccount } from './account-page.js';
import { initBanner } from './banner.js';
import { mountChanges } from './changes.js';
import { mountCompare } from './compare.js';
import { mountCurves } from './curves.js';
import { mountExperiments } from './experiments.js';
import { mountFingerprintHistory } from './fingerprint-history.js';
import { mountHistory } from './history.js';
import { mountHosts } from './hosts.js';
import { mountRun } from './run.js';
import { mountSchedule } from './schedule.js';
import { mountSchedules } from './schedules.js';

const ROUTES = [
  [/^#\/experiments\/(\d+)\/?$/, 'experiments', (page, m) => [`experiment ${m[1]}`, mountCurves(page, m[1])]],
  [/^#\/runs\/(\d+)\/?$/, 'experiments', (page, m) => [`run ${m[1]}`, mountRun(page, m[1])]],
  [/^#\/compare\/?(?:\?(.*))?$/, 'history', (page, m) => ['compare', mountCompare(page, new URLSearchParams(m[1] ?? ''))]],
  [/^#\/fingerprints\/([^/?]+)\/?(?:\?(.*))?$/, 'history', (page, m) => [`fingerprint ${m[1].slice(0, 12)}`,
    mountFingerprintHistory(page, decodeURIComponent(m[1]), new URLSearchParams(m[2] ?? ''))]],
  [/^#\/history\/?(?:\?(.*))?$/, 'history', (page, m) => ['history', mountHistory(page, new URLSearchParams(m[1] ?? ''))]],
  [/^#\/changes\/?(?:\?(.*))?$/, 'changes', (page, m) => ['changes', mountChanges(page, new URLSearchParams(m[1] ?? ''))]],
  [/^#\/schedules\/?$/, 'schedules', (page) => ['schedules', mountSchedules(page)]],
  [/^#\/schedules\/(\d+)\/?$/, 'schedules', (page, m) => [`schedule ${m[1]}`, mountSchedule(page, m[1])]],
  [/^#\/hosts\/?$/, 'hosts', (page) => ['hosts', mountHosts(page)]],
  [/^#\/account\/?$/, 'account', (page) => ['account', mountAccount(page)]],
  [/^(?:#\/?)?(?:\?(.*))?$/, 'experiments', (page, m) => ['experiments', mountExperiments(page, new URLSearchParams(m[1] ?? ''))]],
];

let unmount = null;

function route() {
  unmount?.();
  const page = document.getElementById('page');
  const hash = window.location.hash;
  const [pattern, section, mount] = ROUTES.find(([regex]) => regex.test(hash)) ?? ROUTES[ROUTES.length - 1];
  const [title, teardown] = mount(page, hash.match(pattern) ?? []);
  document.title = `qplab · ${title}`;
  unmount = teardown;
  document.querySelectorAll('.top nav a').forEach((link) => link.classList.toggle('current', link.dataset.section === section));
  window.scrollTo(0, 0);
}

initBanner();
window.addEventListener('hashchange', route);
initAccount().then(() => { route(); initAlerts(); }); // pages know the role (an admin's account page shows the accounts and the audit log)

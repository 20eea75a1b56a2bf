// The alerts in the header (GET /api/alerts): open change points, experiments of the last 24 hours whose runs failed
// an expect rule, stale schedules. Hidden when there is none; its title lists them, and it links to the first one's
// page (the Changes page for a change). Read every ALERTS_MS and on every page change.
import { getAlerts } from './api.js';
import { h } from './dom.js';

const ALERTS_MS = 30000;

function render(slot, now) {
  const count = now.alerts.length;
  if (count === 0) {
    slot.replaceChildren();
    slot.hidden = true;
    return;
  }
  const parts = [
    now.openChanges ? `${now.openChanges} open change${now.openChanges === 1 ? '' : 's'}` : null,
    now.expectationFailures ? `${now.expectationFailures} failed expectation${now.expectationFailures === 1 ? '' : 's'}` : null,
    now.staleSchedules ? `${now.staleSchedules} stale schedule${now.staleSchedules === 1 ? '' : 's'}` : null,
  ].filter(Boolean);
  slot.hidden = false;
  slot.replaceChildren(h('a', {
    id: 'alerts-link', class: 'alerts', href: now.alerts[0].link.startsWith('#') ? now.alerts[0].link : '#/changes',
    title: now.alerts.map((a) => `• ${a.message}`).join('\n'),
    dataset: { changes: now.openChanges, expectations: now.expectationFailures, stale: now.staleSchedules },
  }, `⚠ ${parts.join(', ')}`));
}

/** Starts the header's alerts (once logged in: they need a viewer). */
export function initAlerts() {
  const slot = document.getElementById('alerts');
  if (!slot || document.body.dataset.role === 'anonymous' || !document.body.dataset.role) return;
  const load = () => getAlerts().then((now) => render(slot, now)).catch(() => { slot.hidden = true; });
  load();
  window.setInterval(load, ALERTS_MS);
  window.addEventListener('hashchange', load);
}

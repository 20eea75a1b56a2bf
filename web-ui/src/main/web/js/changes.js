// The change points found in the fingerprints' run-level series, #/changes (?status=open|confirmed|dismissed):
// newest first, each with its series over time (the fingerprint's history, the change marked), and for an
// operator the triage: confirm (a new normal: the series restarts there) or dismiss (not a change), with a reason.
import { decideChange, getFingerprintHistory, listChanges } from './api.js';
import { clearError, showError } from './banner.js';
import { chartCard, showChart } from './chart-card.js';
import { destroyAllCharts } from './charts.js';
import { h } from './dom.js';
import { formatNumber, formatTime } from './format.js';
import { fingerprintHash, historySeries } from './fingerprint-history.js';
import { formatMetric, metricInfo, metricTitle } from './metrics.js';

const STATUSES = ['open', 'confirmed', 'dismissed'];

function changeText(change) {
  const sign = change.changePercent > 0 ? '+' : '';
  return `${metricTitle(change.metric)}: ${sign}${formatNumber(change.changePercent)} % `
    + `(${formatMetric(change.metric, change.meanBefore)} → ${formatMetric(change.metric, change.meanAfter)}, `
    + `p ${change.pValue < 1e-4 ? change.pValue.toExponential(1) : formatNumber(change.pValue)}, `
    + `${change.pointsBefore} runs before, ${change.pointsAfter} after${change.settled ? '' : ', may still move'})`;
}

function decisionText(change) {
  if (change.status === 'open') return null;
  return h('p', { class: 'decision' }, `${change.status === 'confirmed' ? 'Confirmed' : 'Dismissed'} by `
    + `${change.decidedBy} ${formatTime(change.decidedAt)}: ${change.reason}`);
}

function changeCard(change, onDecided) {
  const name = `change${change.id}`;
  const chart = chartCard({ name, canvasId: `chart-${name}`, title: 'Its series over time' });
  const reason = h('input', { type: 'text', class: 'reason', placeholder: 'why (kept with the decision)', size: 40 });
  const decide = (how) => async () => {
    try {
      await decideChange(change.id, how, reason.value);
      clearError('changes');
      onDecided();
    } catch (error) {
      showError('changes', error);
    }
  };
  const triage = change.status !== 'open' ? null : h('p', { class: 'triage', dataset: { needs: 'operator' } }, reason, ' ',
    h('button', { type: 'button', class: 'confirm', onclick: decide('confirm'),
      title: 'A new normal: the series restarts here' }, 'Confirm'), ' ',
    h('button', { type: 'button', class: 'dismiss', onclick: decide('dismiss'),
      title: 'Not a change: hidden, the series goes on as it was' }, 'Dismiss'));
  const card = h('section', { class: 'card change', dataset: { changeId: change.id, status: change.status } },
    h('h2', {}, changeText(change)),
    h('p', { class: 'muted' }, 'between run ', h('a', { href: `#/runs/${change.runBefore}` }, `#${change.runBefore}`),
      ' and run ', h('a', { href: `#/runs/${change.runAfter}` }, `#${change.runAfter}`), ' (experiment ',
      h('a', { href: `#/experiments/${change.experimentId}` }, `#${change.experimentId}`), '), found ',
      formatTime(change.foundAt), ' · fingerprint ',
      h('a', { href: fingerprintHash(change.fingerprint, change.metric) }, h('code', {}, change.fingerprint.slice(0, 12)))),
    decisionText(change), triage, h('div', { class: 'charts' }, chart));
  return { card, chart, name };
}

async function drawSeries(change, { chart, name }) {
  const history = await getFingerprintHistory(change.fingerprint, change.metric);
  const series = historySeries(history);
  const { toUnit, unit } = metricInfo(change.metric, history.unit);
  const after = (history.runs ?? []).find((run) => run.runId === change.runAfter);
  if (after) {
    series.push({ label: 'first run after the change', showLine: false, pointRadius: 8, colorIndex: 2, colorCount: 3,
      points: [{ x: new Date(after.finishedAt).getTime(), y: toUnit(after.value), n: 1 }] });
  }
  showChart(chart, name, { series, colorCount: 3, xKind: 'time', xTitle: 'Finished (local time)',
    yTitle: metricTitle(change.metric, history.unit), unit }, 'No finished run has this metric.');
}

/** Renders the changes of the query's status (open by default) into `container`; returns its teardown. */
export function mountChanges(container, query) {
  let mounted = true;
  const status = STATUSES.includes(query.get('status')) ? query.get('status') : 'open';
  const list = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  container.replaceChildren(h('section', { id: 'changes', class: 'history-view' },
    h('div', { class: 'card header' }, h('h2', {}, 'Changes'),
      h('p', { class: 'muted' }, 'Where a configuration\'s runs moved (E-Divisive means over each fingerprint\'s runs, as '
        + 'they finish). Confirm a change to make it the new normal, or dismiss it; either needs a reason.'),
      h('p', { class: 'status-filter' }, STATUSES.map((s, i) => [i ? ' · ' : '', s === status
        ? h('strong', {}, s) : h('a', { href: `#/changes?status=${s}` }, s)]))),
    list));

  async function load() {
    try {
      const changes = await listChanges(status);
      if (!mounted) return;
      clearError('changes');
      destroyAllCharts();
      if (changes.length === 0) {
        list.replaceChildren(h('p', { class: 'card empty' }, status === 'open' ? 'No open change.' : `No ${status} change.`));
        return;
      }
      const cards = changes.map((change) => [change, changeCard(change, load)]);
      list.replaceChildren(...cards.map(([, c]) => c.card));
      await Promise.all(cards.map(([change, c]) => drawSeries(change, c)));
    } catch (error) {
      if (!mounted) return;
      showError('changes', error);
      list.replaceChildren(h('p', { class: 'empty' }, 'No changes: see the error above.'));
    }
  }
  load();
  return () => {
    mounted = false;
    clearError('changes');
    destroyAllCharts();
  };
}

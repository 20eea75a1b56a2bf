// The cycle-time distribution card of the curves page: pick a point (its varying parameters), see
// the distribution of each of its runs (one line per repeat, so their spread shows), and follow the
// point's fingerprint to its history over time.
import { clearError, showError } from './banner.js';
import { chartCard } from './chart-card.js';
import { drawDistributions, loadDistributions } from './distribution.js';
import { h } from './dom.js';
import { fingerprintHash } from './fingerprint-history.js';
import { formatParam } from './format.js';

const NAME = 'cycleDistribution';

function pointLabel(run, varying) {
  const parts = varying.map((name) => `${name}=${formatParam(name, run.params?.[name])}`);
  return parts.length > 0 ? parts.join(', ') : 'every run';
}

/** → {card, update(finishedRuns, varying, emptyText)}; `isMounted` stops late draws after the page left. */
export function distributionCard(isMounted) {
  const select = h('select', { id: 'distribution-point', title: 'The point whose runs are drawn' });
  const history = h('a', {
    id: 'distribution-history', class: 'series-by', hidden: true,
    title: 'This point\'s fingerprint (parameters + host) over time, across experiments',
  }, 'history');
  const card = chartCard({
    name: NAME,
    canvasId: 'chart-cycle-distribution',
    title: 'Cycle-time distribution',
    controls: h('span', { class: 'card-controls' }, h('label', { class: 'series-by' }, 'point ', select), history),
    className: 'distribution-card',
  });

  /** The history of the point's first run's fingerprint (its repeats normally share it). */
  function showHistoryLink(runs) {
    const fingerprint = runs.find((run) => run.fingerprint)?.fingerprint;
    history.hidden = !fingerprint;
    if (fingerprint) history.setAttribute('href', fingerprintHash(fingerprint));
  }
  let points = new Map();
  let drawn = null;
  let lastEmptyText = '';

  async function draw() {
    const runs = points.get(select.value) ?? [];
    showHistoryLink(runs);
    const key = `${select.value}|${runs.map((r) => r.id).join(',')}`;
    if (key === drawn) return;
    drawn = key;
    if (runs.length === 0) {
      drawDistributions(card, NAME, [], { emptyText: lastEmptyText });
      return;
    }
    try {
      const series = await loadDistributions(runs.map((run) => ({
        id: run.id, label: `run #${run.id} (repeat ${run.repeat})`,
      })));
      if (!isMounted() || drawn !== key) return;
      clearError(NAME);
      drawDistributions(card, NAME, series);
    } catch (error) {
      drawn = null;
      if (isMounted()) showError(NAME, error);
    }
  }
  select.addEventListener('change', draw);

  function update(finishedRuns, varying, emptyText) {
    lastEmptyText = emptyText;
    points = new Map();
    for (const run of [...finishedRuns].sort((a, b) => a.index - b.index || a.repeat - b.repeat)) {
      const label = pointLabel(run, varying);
      if (!points.has(label)) points.set(label, []);
      points.get(label).push(run);
    }
    const labels = [...points.keys()];
    if (select.dataset.options !== labels.join('|')) {
      const keep = select.value;
      select.replaceChildren(...labels.map((label) => h('option', { value: label }, label)));
      select.dataset.options = labels.join('|');
      if (labels.includes(keep)) select.value = keep;
    }
    draw();
  }
  return { card, update };
}

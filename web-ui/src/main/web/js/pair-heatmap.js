// The host x host heatmap of an experiment whose runs ran on pairs of hosts (hosts: all_pairs, {group: [...]}):
// per configuration, each pair's median of the metric (GET /api/experiments/{id}/pairs), coloured by how close it
// comes to the best pair, bad pairs (ClusterKit's rule: below 93 % of the best bandwidth, above 2.1x the best time,
// or the matrix's bad_below and bad_above; in every round, a bad pair being retested) outlined; and the pairs as CSV.
import { csvField, saveText } from './downloads.js';
import { h } from './dom.js';
import { bytesPerSecondToGbit, formatNumber, formatParam } from './format.js';

/** The metric's value as the table shows it, and the unit in its caption. */
function display(matrix) {
  if (matrix.unit === 'B/s') return { unit: 'Gbit/s', of: (v) => formatNumber(bytesPerSecondToGbit(v)) };
  if (matrix.unit === 'ns') return { unit: 'µs', of: (v) => formatNumber(v / 1000) };
  return { unit: matrix.unit, of: (v) => formatNumber(v) };
}

/** Green at the best, through yellow, to red at the rule's limit and beyond. */
function colour(matrix, relative) {
  const limit = matrix.higherIsBetter ? matrix.badBelow : matrix.badAbove;
  const span = matrix.higherIsBetter ? (1 - relative) / (1 - limit) : (relative - 1) / (limit - 1);
  const hue = Math.round(120 * (1 - Math.min(1, Math.max(0, span))));
  return `hsl(${hue}, 70%, 85%)`;
}

function pairCsv(matrix) {
  const names = [...new Set(matrix.configurations.flatMap((c) => Object.keys(c.params)))].sort();
  const header = ['client', 'server', `${matrix.metric} [${matrix.unit}]`, 'n', 'relative to best', 'bad', 'rounds',
    ...names];
  const rows = matrix.configurations.flatMap((c) => c.pairs.map((p) => [p.client, p.server, p.value, p.n,
    p.relative, p.bad, p.rounds, ...names.map((name) => c.params[name])]));
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}

function configurationTable(matrix, configuration) {
  const { of } = display(matrix);
  const byPair = new Map(configuration.pairs.map((p) => [`${p.client}/${p.server}`, p]));
  const clients = matrix.hosts.filter((host) => configuration.pairs.some((p) => p.client === host));
  const servers = matrix.hosts.filter((host) => configuration.pairs.some((p) => p.server === host));
  const params = Object.entries(configuration.params).map(([name, value]) => `${name} ${formatParam(name, value)}`).join(' · ');
  return h('div', { class: 'pair-configuration' },
    params ? h('p', { class: 'muted' }, params) : null,
    h('table', { class: 'grid pair-heatmap' },
      h('thead', {}, h('tr', {}, h('th', {}, 'client \\ server'), servers.map((s) => h('th', {}, s)))),
      h('tbody', {}, clients.map((client) => h('tr', {}, h('th', {}, client), servers.map((server) => {
        const pair = byPair.get(`${client}/${server}`);
        if (!pair) return h('td', { class: 'muted' }, '');
        return h('td', {
          class: pair.bad ? 'bad' : '',
          style: { background: colour(matrix, pair.relative) },
          title: `${client} → ${server}: ${formatNumber(pair.relative * 100)} % of the best (${configuration.bestPair}), `
            + `median of ${pair.n} run${pair.n === 1 ? '' : 's'}`
            + `${pair.rounds > 1 ? ` of its retest ${pair.rounds - 1} (bad in the rounds before)` : ''}`
            + `${pair.bad ? ', bad' : ''}`,
          dataset: { pair: `${client}/${server}`, bad: String(pair.bad), rounds: String(pair.rounds) },
        }, of(pair.value));
      }))))),
    h('p', { class: 'muted' }, configuration.bad === 0 ? 'No bad pair.'
      : `${configuration.bad} bad pair${configuration.bad === 1 ? '' : 's'} (outlined).`));
}

/** The card, hidden until update() gets pairs; update(null) hides it again. */
export function pairHeatmapCard() {
  const caption = h('span', { class: 'chart-title' }, 'Host pairs');
  const body = h('div', {});
  let current = null;
  const csv = h('button', { type: 'button', class: 'button-link', onclick: () => current
    && saveText('host-pairs.csv', pairCsv(current), 'text/csv') }, 'CSV');
  const card = h('figure', { class: 'card wide', dataset: { chart: 'hostPairs' }, hidden: true },
    h('figcaption', {}, caption, h('span', { class: 'card-controls' }, csv)), body);
  return {
    card,
    update(matrix) {
      current = matrix && matrix.configurations.length > 0 ? matrix : null;
      card.hidden = current === null;
      if (current === null) return;
      const { unit } = display(current);
      const rule = current.higherIsBetter ? `bad below ${formatNumber(current.badBelow * 100)} % of the best`
        : `bad above ${formatNumber(current.badAbove)}× the best`;
      caption.textContent = `Host pairs: ${current.metric} [${unit}], ${rule}`;
      body.replaceChildren(...current.configurations.map((c) => configurationTable(current, c)));
    },
  };
}

// Cycle-time distributions: each run's stored histogram (GET /api/runs/{id}/histogram) as a line of
// the share of its cycles per bin against the bin's cycle time, on a log axis.
import { getHistogram } from './api.js';
import { showChart } from './chart-card.js';

export const BINS_PER_OCTAVE = 8;

/**
 * A histogram → points at each bin's geometric middle (µs). The bins are linear within each power of
 * two, so their widths on the log axis differ by up to 2×; y is the share of the run's cycles per
 * 1/8 power of two (a density), which a bin's own share would otherwise distort at every power of two.
 */
export function histogramPoints(histogram) {
  const total = histogram.cycles || 1;
  return histogram.bins.filter((bin) => bin.count > 0).map((bin) => ({
    x: Math.sqrt(Math.max(bin.lowNs, 0.5) * bin.highNs) / 1000,
    y: (100 * bin.count) / total / (BINS_PER_OCTAVE * Math.log2(bin.highNs / Math.max(bin.lowNs, 0.5))),
    lowNs: bin.lowNs,
    highNs: bin.highNs,
    count: bin.count,
  }));
}

/** runs: [{id, label}] → [{label, points}] once every histogram has arrived. */
export async function loadDistributions(runs) {
  const histograms = await Promise.all(runs.map((run) => getHistogram(run.id, BINS_PER_OCTAVE)));
  return runs.map((run, i) => ({ label: run.label, runId: run.id, points: histogramPoints(histograms[i]) }));
}

/** Draws the distributions into a chart card (see chart-card.js). */
export function drawDistributions(card, name, series, { emptyText = 'No cycles stored.', colorIndexes } = {}) {
  return showChart(card, name, {
    series: series.map((s, i) => ({ ...s, colorIndex: colorIndexes?.[i] ?? i, dash: s.dash })),
    colorCount: Math.max(series.length, ...(colorIndexes ?? []).map((c) => c + 1)),
    xKind: 'log',
    xTitle: 'Cycle time (µs, log; 8 bins per power of two)',
    yTitle: 'Cycles (% per 1/8 power of two)',
    unit: '%',
    pointRadius: 2,
  }, emptyText);
}

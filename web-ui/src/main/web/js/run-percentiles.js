// Cycle-time percentiles over time over every thread of a run: where its tail grew. Once the run has
// ended they come from the stored timeline's slots, exact over all threads. While it runs, a thread's
// percentiles of one interval cannot be merged with another's, so the live chart shows the highest
// thread's, and says so; it is replaced by the exact ones when the run ends.
import { chartCard, showChart } from './chart-card.js';

export const PERCENTILES = 'runPercentiles';
const FIELDS = [['p50', 'medianCycleNs'], ['p99', 'p99CycleNs'], ['p99.9', 'p999CycleNs']];
/** Past this many intervals the oldest go, as on the per-thread charts. */
const MAX_INTERVALS = 5000;

export function percentilesCard() {
  return chartCard({
    name: PERCENTILES, canvasId: 'chart-run-percentiles', title: 'Cycle-time percentiles over time, all threads',
    className: 'full-width',
  });
}

/** A slot's percentile in µs; a slot without cycles has none (a log axis cannot draw 0). */
function micros(cycles, ns) {
  return cycles > 0 ? ns / 1000 : null;
}

/** The timeline's slots → p50, p99 and p99.9 over every thread, each at the end of its slot (s). */
export function storedPercentileSeries(timeline) {
  return FIELDS.map(([label, field]) => ({
    label,
    points: timeline.percentiles.map((slot) => ({
      x: slot.toNs / 1e9,
      y: micros(slot.cycles, slot[field]),
      fromNs: slot.fromNs,
      toNs: slot.toNs,
      cycles: slot.cycles,
    })),
  }));
}

/** Per interval index, the highest of the threads' p50, p99 and p99.9 that arrived live. */
export class LivePercentiles {
  /** intervalNs: the run's interval length, to place interval i at its end, (i + 1) × intervalNs. */
  constructor(intervalNs) {
    this.intervalNs = intervalNs;
    this.byInterval = new Map();
  }

  /** threads: a progress event's [{thread, interval, cycles, medianCycleNs, p99CycleNs, p999CycleNs}] */
  add(threads) {
    for (const t of threads) {
      if (t.cycles === 0) continue;
      const slot = this.byInterval.get(t.interval) ?? { interval: t.interval, cycles: 0, threads: 0 };
      slot.cycles += t.cycles;
      slot.threads += 1;
      for (const [, field] of FIELDS) slot[field] = Math.max(slot[field] ?? 0, t[field]);
      this.byInterval.set(t.interval, slot);
    }
    while (this.byInterval.size > MAX_INTERVALS) {
      this.byInterval.delete(this.byInterval.keys().next().value); // the oldest: they arrive in order
    }
  }

  series() {
    const slots = [...this.byInterval.values()].sort((a, b) => a.interval - b.interval);
    return FIELDS.map(([label, field]) => ({
      label: `${label}, max over threads`,
      points: slots.map((slot) => ({
        x: ((slot.interval + 1) * this.intervalNs) / 1e9,
        y: slot[field] / 1000,
        interval: slot.interval,
        cycles: slot.cycles,
        threads: slot.threads,
      })),
    }));
  }
}

/** The interval length a run's engine used: its interval_ms, else the engine's default of 100 ms. */
export function intervalNsOf(run) {
  const ms = Number(run.params?.interval_ms ?? 100);
  return ms * 1e6;
}

export function drawPercentiles(card, series, emptyText) {
  showChart(card, PERCENTILES, {
    series,
    xKind: 'linear',
    xTitle: 'Time since the run started (s)',
    yTitle: 'Cycle time (µs, log)',
    yLog: true,
    unit: 'µs',
    pointRadius: 2,
  }, emptyText);
}

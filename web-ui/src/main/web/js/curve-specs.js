// What the curves page draws for an experiment: each chart's query, units and axes, and how a
// curve's points become chart series.
import {
  bytesPerSecondToGbit, formatSeries, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';

/** Parameters a thread-scalability curve can be split by, in the order they are preferred. */
export const SERIES_CHOICES = ['qps_per_thread', 'transport', 'lock_model', 'msg_size', 'op', 'srq', 'provider'];

/** The series of the throughput/message-rate-vs-threads charts: the first preferred parameter that varies. */
export function defaultSeries(varying) {
  return SERIES_CHOICES.find((name) => varying.includes(name)) ?? 'msg_size';
}

export const PERCENTILES = [
  { metric: 'cycle_median_ns', label: 'median', dash: [] },
  { metric: 'cycle_p99_ns', label: 'p99', dash: [7, 4] },
  { metric: 'cycle_p999_ns', label: 'p99.9', dash: [2, 3] },
];

export const CURVES = [
  {
    name: 'bandwidthVsSize',
    canvasId: 'chart-bw-size',
    title: 'Bandwidth vs message size',
    query: () => ({ x: 'msg_size', y: 'bw_avg_bps', series: 'threads' }),
    toUnit: bytesPerSecondToGbit,
    unit: 'Gbit/s',
    xKind: 'size',
    xTitle: 'Message size (bytes, log2)',
    yTitle: 'Bandwidth (Gbit/s)',
  },
  {
    name: 'throughputVsThreads',
    canvasId: 'chart-tput-threads',
    title: 'Throughput vs threads',
    query: (series) => ({ x: 'threads', y: 'bw_avg_bps', series }),
    toUnit: bytesPerSecondToGbit,
    unit: 'Gbit/s',
    xKind: 'count',
    xTitle: 'Threads',
    yTitle: 'Throughput (Gbit/s)',
  },
  {
    name: 'msgRateVsThreads',
    canvasId: 'chart-rate-threads',
    title: 'Message rate vs threads',
    query: (series) => ({ x: 'threads', y: 'msg_rate', series }),
    toUnit: messagesPerSecondToMillions,
    unit: 'Mmsg/s',
    xKind: 'count',
    xTitle: 'Threads',
    yTitle: 'Message rate (Mmsg/s)',
  },
];

/** Cycle-time percentiles against message size (or threads when the size is fixed), one colour per series. */
export function percentilesSpec(varying) {
  const bySize = varying.includes('msg_size') || !varying.includes('threads');
  return {
    name: 'cyclePercentiles',
    canvasId: 'chart-cycle-percentiles',
    title: 'Cycle-time percentiles',
    x: bySize ? 'msg_size' : 'threads',
    series: bySize ? 'threads' : 'msg_size',
    xKind: bySize ? 'size' : 'count',
    xTitle: bySize ? 'Message size (bytes, log2)' : 'Threads',
    yTitle: 'Cycle time (µs, log)',
    unit: 'µs',
  };
}

function compareValues(a, b) {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/** Curve points ({series, x, y, n, min, max}) → one series per value, y in display units. */
export function toSeries(curve, toUnit) {
  const bySeries = new Map();
  for (const point of curve.points ?? []) {
    if (!bySeries.has(point.series)) bySeries.set(point.series, []);
    bySeries.get(point.series).push({
      x: point.x,
      y: toUnit(point.y),
      min: toUnit(point.min ?? point.y),
      max: toUnit(point.max ?? point.y),
      n: point.n ?? 1,
    });
  }
  return [...bySeries.entries()]
    .sort(([a], [b]) => compareValues(a, b))
    .map(([value, points]) => ({
      value,
      label: formatSeries(curve.series, value),
      points: points.sort((a, b) => a.x - b.x),
    }));
}

/** Three curves (median, p99, p99.9) → series coloured by their series value, dashed by percentile. */
export function percentileSeries(curves) {
  const perPercentile = curves.map((curve) => toSeries(curve, nanosToMicros));
  const values = [...new Set(perPercentile.flat().map((s) => JSON.stringify(s.value)))];
  values.sort((a, b) => compareValues(JSON.parse(a), JSON.parse(b)));
  const series = [];
  values.forEach((value, colorIndex) => PERCENTILES.forEach((percentile, i) => {
    const found = perPercentile[i].find((s) => JSON.stringify(s.value) === value);
    if (found) {
      series.push({ ...found, label: `${found.label} · ${percentile.label}`, colorIndex, dash: percentile.dash });
    }
  }));
  return { series, colorCount: values.length };
}

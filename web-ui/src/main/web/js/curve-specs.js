// What the curves page draws for an experiment: each chart's query, units and axes, and how a
// curve's points become chart series. Bandwidth charts for its bandwidth runs, latency charts for its
// latency runs (mode latency), storage charts for its nvmeof runs (fio on NVMe-oF), each family for an
// experiment that has such runs.
import {
  bytesPerSecondToGbit, bytesPerSecondToMiB, formatSeries, iopsToThousands, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';

/** Parameters a thread-scalability curve can be split by, in the order they are preferred. */
export const SERIES_CHOICES = ['mode', 'qps_per_thread', 'transport', 'lock_model', 'msg_size', 'op', 'srq', 'provider'];

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
    className: 'wide',
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
    // against message size when threads do not vary (bandwidthCurves); on a log axis, or small messages' lines
    // sit flat on 0 beside large ones
    name: 'msgRateVsThreads',
    canvasId: 'chart-rate-threads',
    title: 'Message rate vs threads',
    query: (series) => ({ x: 'threads', y: 'msg_rate', series }),
    toUnit: messagesPerSecondToMillions,
    unit: 'Mmsg/s',
    xKind: 'count',
    xTitle: 'Threads',
    yTitle: 'Message rate (Mmsg/s, log)',
    yLog: true,
  },
];

/**
 * The bandwidth charts an experiment's varying parameters call for: throughput against threads only when threads
 * vary (else it is the bandwidth-vs-size chart again, or a stack of lines at x = 1), and message rate against
 * threads when they vary, else against message size, one line per what else varies.
 */
export function bandwidthCurves(varying) {
  if (varying.includes('threads')) return CURVES;
  return CURVES.filter((curve) => curve.name !== 'throughputVsThreads').map((curve) => (curve.name !== 'msgRateVsThreads'
    ? curve : {
      ...curve,
      title: 'Message rate vs message size',
      query: () => ({
        x: 'msg_size', y: 'msg_rate', series: firstVarying(SERIES_CHOICES.filter((name) => name !== 'msg_size'), varying, 'threads'),
      }),
      xKind: 'size',
      xTitle: 'Message size (bytes, log2)',
    }));
}

/** A run's latency statistics as the curve API names them (µs), the percentiles drawn, dashed like the cycle times'. */
export const LATENCY_PERCENTILES = [
  { metric: 'latency_typical_us', label: 'typical', dash: [] },
  { metric: 'latency_p99_us', label: 'p99', dash: [7, 4] },
  { metric: 'latency_p999_us', label: 'p99.9', dash: [2, 3] },
];

/** Whether a run counts I/Os, not messages, as its provider says (the API's run.counts: fio on NVMe-oF). */
export function countsIos(run) {
  return run.counts === 'ios';
}

/** Whether a run ran in latency mode (one message in flight per thread; the others are bandwidth runs). */
export function isLatencyRun(run) {
  return run.params?.mode === 'latency' && !countsIos(run);
}

/**
 * Which chart families an experiment's runs call for (before any run is known: bandwidth, as always). The
 * cycle-time percentiles go with the engine's bandwidth runs: a latency run's cycle times are its latency, which
 * the latency charts draw, and an nvmeof run has neither message size nor threads.
 */
export function chartFamilies(runs) {
  const nvmeof = runs.some(countsIos);
  const engine = runs.filter((run) => !countsIos(run));
  const latency = engine.some(isLatencyRun);
  const bandwidth = (!latency && !nvmeof) || engine.some((run) => !isLatencyRun(run));
  return { nvmeof, latency, bandwidth, cycles: bandwidth };
}

/** The series of the storage charts: transport (rdma, tcp, local), and rw too when it varies (reads and writes apart). */
function nvmeofSeries(varying) {
  return varying.includes('rw') ? 'transport,rw' : 'transport';
}

/**
 * The charts of an experiment's nvmeof runs, each a query of the same curve API: IOPS against iodepth,
 * latency percentiles (fio's completion latency, µs) against IOPS (a metric on x: one point per configuration,
 * each line along iodepth), bandwidth against block size; one series per transport (and rw).
 */
export function nvmeofSpecs(varying) {
  const series = nvmeofSeries(varying);
  return {
    iopsVsIodepth: {
      name: 'iopsVsIodepth',
      canvasId: 'chart-iops-iodepth',
      title: 'IOPS vs iodepth',
      query: { x: 'iodepth', y: 'iops', series },
      toUnit: iopsToThousands,
      unit: 'kIOPS',
      xKind: 'pow2',
      xTitle: 'iodepth (I/Os in flight per job, log2)',
      yTitle: 'IOPS (thousands of I/Os per second)',
    },
    latencyVsIops: {
      name: 'latencyVsIops',
      canvasId: 'chart-lat-iops',
      className: 'wide',
      title: 'Latency percentiles vs IOPS',
      x: 'iops',
      series,
      // each line moves along this parameter (each point one configuration); the others are pinned
      along: firstVarying(['iodepth', 'numjobs', 'bs'], varying, undefined),
      xKind: 'linear',
      xTitle: 'IOPS (I/Os per second; each point one matrix point)',
      yTitle: 'Completion latency (µs, log)',
      unit: 'µs',
    },
    bandwidthVsBs: {
      name: 'bandwidthVsBs',
      canvasId: 'chart-bw-bs',
      title: 'Bandwidth vs block size',
      query: { x: 'bs', y: 'bw_avg_bps', series },
      toUnit: bytesPerSecondToMiB,
      unit: 'MiB/s',
      xKind: 'size',
      xTitle: 'Block size (bytes, log2)',
      yTitle: 'Bandwidth (MiB/s)',
    },
  };
}

function firstVarying(candidates, varying, fallback) {
  return candidates.find((name) => varying.includes(name)) ?? fallback;
}

/**
 * Typical latency (median, perftest's t_typical) against message size, one line per op (per transport and op
 * when both vary: "rc send", "ud send"), or per what else varies.
 */
export function latencyVsSizeSpec(varying) {
  const series = varying.includes('op') && varying.includes('transport') ? 'transport,op'
    : firstVarying(['op', 'transport', 'threads', 'provider', 'inline_size', 'polling'], varying, 'op');
  return {
    name: 'latencyVsSize',
    canvasId: 'chart-lat-size',
    className: 'wide',
    title: 'Latency vs message size',
    query: { x: 'msg_size', y: 'latency_typical_us', series },
    toUnit: (us) => us,
    xKind: 'size',
    xTitle: 'Message size (bytes, log2)',
    yTitle: 'Latency, typical (µs, log)',
    yLog: true,
    unit: 'µs',
  };
}

/**
 * Latency percentiles (typical, p99, p99.9) against threads, one line per percentile, coloured by the
 * parameter that varies besides (message size first); against message size when threads do not vary.
 */
export function latencyPercentilesSpec(varying) {
  const byThreads = varying.includes('threads') || !varying.includes('msg_size');
  return {
    name: 'latencyPercentiles',
    canvasId: 'chart-lat-percentiles',
    title: byThreads ? 'Latency percentiles vs threads' : 'Latency percentiles vs message size',
    x: byThreads ? 'threads' : 'msg_size',
    series: byThreads ? firstVarying(['msg_size', 'op', 'transport', 'provider'], varying, 'msg_size')
      : firstVarying(['op', 'transport', 'provider'], varying, 'op'),
    xKind: byThreads ? 'count' : 'size',
    xTitle: byThreads ? 'Threads' : 'Message size (bytes, log2)',
    yTitle: 'Latency (µs, log)',
    unit: 'µs',
  };
}

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

function compareLists(a, b) {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** A line's label: its series value, then the values of what the server split ("1 thread · transport = rc"). */
function seriesLabel(curve, value, split) {
  return [formatSeries(curve.series, value), ...Object.entries(split ?? {}).map(([name, v]) => formatSeries(name, v))]
    .join(' · ');
}

/**
 * Curve points ({series, split, x, y, n, min, max, along}) → one series per value and split, y in display units.
 * Each point keeps its split values and the value it moves along (by their names), for the downloads.
 */
export function toSeries(curve, toUnit) {
  const lines = new Map();
  for (const point of curve.points ?? []) {
    const split = point.split ?? null;
    const key = JSON.stringify([point.series, split]);
    if (!lines.has(key)) lines.set(key, { value: point.series, split, points: [] });
    const n = point.n ?? 1;
    lines.get(key).points.push({
      x: point.x,
      y: toUnit(point.y),
      min: toUnit(n > 1 ? point.min ?? point.y : point.y),
      max: toUnit(n > 1 ? point.max ?? point.y : point.y),
      n,
      ...(split ?? {}),
      ...(point.along !== undefined && point.along !== null && curve.along ? { [curve.along]: point.along } : {}),
    });
  }
  const order = (line) => [line.value, ...Object.values(line.split ?? {})];
  return [...lines.entries()]
    .sort(([, a], [, b]) => compareLists(order(a), order(b)))
    .map(([key, line]) => ({
      key,
      value: line.value,
      split: line.split,
      label: seriesLabel(curve, line.value, line.split),
      points: line.points.sort((a, b) => a.x - b.x),
    }));
}

/**
 * Three curves (median, p99, p99.9 of `percentiles`, in `toUnit`) → series coloured by their series value (and
 * split), dashed by percentile; with `bareWhenSingle` and one such line, labelled by the percentile alone.
 */
export function percentileSeries(curves, { percentiles = PERCENTILES, toUnit = nanosToMicros, bareWhenSingle = false } = {}) {
  const perPercentile = curves.map((curve) => toSeries(curve, toUnit));
  const lines = new Map();
  perPercentile.flat().forEach((s) => lines.set(s.key, [s.value, ...Object.values(s.split ?? {})]));
  const keys = [...lines.keys()].sort((a, b) => compareLists(lines.get(a), lines.get(b)));
  const series = [];
  const bare = bareWhenSingle && keys.length === 1;
  keys.forEach((key, colorIndex) => percentiles.forEach((percentile, i) => {
    const found = perPercentile[i].find((s) => s.key === key);
    if (found) {
      const label = bare ? percentile.label : `${found.label} · ${percentile.label}`;
      // alone, each percentile gets a colour of its own besides its dash
      series.push({ ...found, label, colorIndex: bare ? i : colorIndex, dash: percentile.dash });
    }
  }));
  return { series, colorCount: bare ? percentiles.length : keys.length };
}

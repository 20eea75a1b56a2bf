// A run over time, per thread: throughput and cycle time. While the run is queued or running the
// points arrive as server-sent events (one per stored frame); once it has ended they come from its
// stored samples (GET /api/runs/{id}/timeline). Both carry the same per-thread numbers.
import { getTimeline, liveRunUrl } from './api.js';
import { clearError, showError } from './banner.js';
import { chartCard, showChart } from './chart-card.js';
import { h } from './dom.js';

const THROUGHPUT = 'runThroughput';
const CYCLE_TIME = 'runCycleTime';
/** Past this many points per thread the oldest go: a long run stays drawable. */
const MAX_POINTS_PER_THREAD = 5000;

/** Per-thread series of throughput (Gbit/s) and median cycle time (µs) against seconds since t0. */
class ThreadSeries {
  constructor() {
    this.threads = new Map();
    this.trimmed = false;
  }

  /** threads: [{thread, cycles, bytes, firstStartNs, lastEndNs, medianCycleNs}] */
  add(threads) {
    for (const t of threads) {
      if (!this.threads.has(t.thread)) this.threads.set(t.thread, []);
      const points = this.threads.get(t.thread);
      const spanNs = Math.max(1, t.lastEndNs - t.firstStartNs);
      points.push({
        x: t.lastEndNs / 1e9,
        gbits: (t.bytes * 8) / spanNs,
        micros: t.medianCycleNs / 1000,
        cycles: t.cycles,
        bytes: t.bytes,
        firstStartNs: t.firstStartNs,
        lastEndNs: t.lastEndNs,
      });
      if (points.length > MAX_POINTS_PER_THREAD) {
        points.shift();
        this.trimmed = true;
      }
    }
  }

  series(y) {
    return [...this.threads.entries()].sort(([a], [b]) => a - b).map(([thread, points]) => ({
      label: `thread ${thread}`,
      points: points.map(({ x, cycles, bytes, firstStartNs, lastEndNs, ...rest }) => ({
        x, y: rest[y], cycles, bytes, firstStartNs, lastEndNs,
      })),
    }));
  }
}

/**
 * → {cards, start(run), stop()}: the two chart cards, and the source that fills them. `onEnd(status)`
 * runs once a live run has ended.
 */
export function runTimeline({ onEnd }) {
  const state = h('p', { id: 'live-state', class: 'live-state', dataset: { live: 'idle' } });
  const throughput = chartCard({ name: THROUGHPUT, canvasId: 'chart-run-throughput', title: 'Throughput over time, per thread' });
  const cycleTime = chartCard({ name: CYCLE_TIME, canvasId: 'chart-run-cycle-time', title: 'Cycle time over time, per thread (median of each frame)' });
  let source = null;
  let data = new ThreadSeries();
  let frames = 0;
  let drawTimer = null;
  let stopped = false;

  function setState(live, text) {
    state.dataset.live = live;
    state.textContent = text;
  }

  function draw(emptyText) {
    drawTimer = null;
    if (stopped) return;
    const common = { xKind: 'linear', xTitle: 'Time since the run started (s)', pointRadius: 2 };
    showChart(throughput, THROUGHPUT, { ...common, series: data.series('gbits'), yTitle: 'Throughput (Gbit/s)', unit: 'Gbit/s' }, emptyText);
    showChart(cycleTime, CYCLE_TIME, { ...common, series: data.series('micros'), yTitle: 'Cycle time (µs)', unit: 'µs' }, emptyText);
  }

  function drawSoon() {
    if (drawTimer === null) drawTimer = setTimeout(() => draw('Waiting for samples…'), 200);
  }

  async function loadStored(runId) {
    try {
      const timeline = await getTimeline(runId, 200);
      if (stopped) return;
      data = new ThreadSeries();
      data.add(timeline.points);
      clearError('timeline');
      setState('stored', `From the stored samples: ${timeline.points.length} points, ${formatInterval(timeline.intervalNs)} each.`);
      draw('No samples stored.');
    } catch (error) {
      if (!stopped) showError('timeline', error);
    }
  }

  function watch(runId) {
    setState('connecting', 'Connecting to the live stream…');
    source = new EventSource(liveRunUrl(runId));
    source.addEventListener('status', (event) => {
      const { status } = JSON.parse(event.data);
      setState('watching', status === 'QUEUED' ? 'Live: waiting for the run to start…' : 'Live: samples arrive as they are stored.');
      clearError('live');
    });
    source.addEventListener('progress', (event) => {
      const progress = JSON.parse(event.data);
      data.add(progress.threads);
      frames += 1;
      setState('watching', `Live: ${frames} frames, ${progress.totalCycles} cycles${data.trimmed ? ' (oldest points dropped)' : ''}.`);
      drawSoon();
    });
    source.addEventListener('end', (event) => {
      const { status } = JSON.parse(event.data);
      source.close();
      clearTimeout(drawTimer);
      if (frames === 0) {
        loadStored(runId); // it ended before the stream began: draw what was stored
      } else {
        setState('ended', `Run ${status.toLowerCase()}: ${frames} frames received live.`);
        draw('No samples arrived.');
      }
      onEnd?.(status);
    });
    source.onerror = () => {
      if (stopped || source.readyState !== EventSource.CLOSED) {
        if (!stopped && state.dataset.live !== 'ended') setState('reconnecting', 'Live stream interrupted: reconnecting (frames in between are not drawn)…');
        return;
      }
      showError('live', new Error(`GET /${liveRunUrl(runId)}: the live stream closed`));
    };
  }

  return {
    cards: [state, h('div', { class: 'charts' }, throughput, cycleTime)],
    /** Live while the run is queued or running, else from its stored samples. */
    start(run) {
      if (run.status === 'QUEUED' || run.status === 'RUNNING') watch(run.id);
      else loadStored(run.id);
    },
    stop() {
      stopped = true;
      clearTimeout(drawTimer);
      source?.close();
      ['live', 'timeline'].forEach(clearError);
    },
  };
}

function formatInterval(ns) {
  if (ns >= 1e9) return `${(ns / 1e9).toPrecision(3)} s`;
  if (ns >= 1e6) return `${(ns / 1e6).toPrecision(3)} ms`;
  return `${(ns / 1e3).toPrecision(3)} µs`;
}

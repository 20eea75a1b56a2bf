// A run over time, from its intervals (every interval_ms each thread reports one, counting every cycle):
// throughput and cycle time per thread, and cycle-time percentiles over every thread. While the run is
// queued or running the per-thread points arrive as server-sent events, one per interval and thread;
// once it has ended they come from its stored intervals (GET /api/runs/{id}/timeline), in slots of
// whole intervals. Both carry the same per-thread numbers.
import { getTimeline, liveRunUrl } from './api.js';
import { clearError, showError } from './banner.js';
import { chartCard, showChart } from './chart-card.js';
import { h } from './dom.js';
import { formatNumber } from './format.js';
import {
  LivePercentiles, drawPercentiles, intervalNsOf, percentilesCard, storedPercentileSeries,
} from './run-percentiles.js';

const THROUGHPUT = 'runThroughput';
const CYCLE_TIME = 'runCycleTime';
/** Slots of the stored timeline: enough to see a run's course, few enough to draw at once. */
const SLOTS = 200;
/** Past this many points per thread the oldest go: a long run stays drawable. */
const MAX_POINTS_PER_THREAD = 5000;

const count = (n) => Number(n).toLocaleString('en');

/** Per-thread series of throughput (Gbit/s) and median cycle time (µs) against seconds since t0. */
class ThreadSeries {
  constructor() {
    this.threads = new Map();
    this.trimmed = false;
  }

  /** threads: [{thread, interval, cycles, bytes, firstStartNs, lastEndNs, medianCycleNs}] */
  add(threads) {
    for (const t of threads) {
      if (!this.threads.has(t.thread)) this.threads.set(t.thread, []);
      const points = this.threads.get(t.thread);
      const spanNs = Math.max(1, t.lastEndNs - t.firstStartNs);
      // frames of one run are stored by several writers, so their events may come out of order: each point goes
      // where its interval belongs (the lines never run back in time), and an interval already drawn is not again
      let at = points.length;
      while (at > 0 && points[at - 1].interval > t.interval) at -= 1;
      if (at > 0 && points[at - 1].interval === t.interval) continue;
      points.splice(at, 0, {
        x: t.lastEndNs / 1e9,
        gbits: (t.bytes * 8) / spanNs,
        micros: t.medianCycleNs / 1000,
        interval: t.interval,
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
      points: points.map(({ x, interval, cycles, bytes, firstStartNs, lastEndNs, ...rest }) => ({
        x, y: rest[y], interval, cycles, bytes, firstStartNs, lastEndNs,
      })),
    }));
  }
}

/**
 * → {cards, start(run), refresh(), stop()}: the chart cards, and the source that fills them. `onStatus(status)` runs
 * when the stream says the run's status (at its start, and when a queued run starts on its agent) and at its first
 * interval; `onEnd(status)` once a live run has ended. One event stream at most, closed by stop().
 */
export function runTimeline({ onStatus, onEnd }) {
  const state = h('p', { id: 'live-state', class: 'live-state', dataset: { live: 'idle' } });
  const throughput = chartCard({ name: THROUGHPUT, canvasId: 'chart-run-throughput', title: 'Throughput over time, per thread' });
  const cycleTime = chartCard({
    name: CYCLE_TIME, canvasId: 'chart-run-cycle-time', title: 'Cycle time over time, per thread (median of each interval)',
  });
  const percentiles = percentilesCard();
  let source = null;
  let runId = null;
  let data = new ThreadSeries();
  let live = null;
  let intervals = 0;
  let cycles = 0;
  let receivedCycles = 0; // the cycles of the intervals this page was sent
  let drawTimer = null;
  let stopped = false;
  let pausing = null;

  function setState(phase, text) {
    state.dataset.live = phase;
    state.textContent = text;
  }

  function drawThreads(emptyText) {
    const common = { xKind: 'linear', xTitle: 'Time since the run started (s)', pointRadius: 2 };
    showChart(throughput, THROUGHPUT, { ...common, series: data.series('gbits'), yTitle: 'Throughput (Gbit/s)', unit: 'Gbit/s' }, emptyText);
    showChart(cycleTime, CYCLE_TIME, { ...common, series: data.series('micros'), yTitle: 'Cycle time (µs)', unit: 'µs' }, emptyText);
  }

  function drawLive(emptyText) {
    drawTimer = null;
    if (stopped) return;
    drawThreads(emptyText);
    drawPercentiles(percentiles, live.series(), emptyText);
  }

  function drawSoon() {
    if (drawTimer === null) drawTimer = setTimeout(() => drawLive('Waiting for the first interval…'), 200);
  }

  /** The stored timeline: every chart, or (percentilesOnly, after a live run) the exact percentiles. */
  async function loadStored({ percentilesOnly = false } = {}) {
    try {
      const timeline = await getTimeline(runId, SLOTS);
      if (stopped) return;
      clearError('timeline');
      drawPercentiles(percentiles, storedPercentileSeries(timeline), 'No intervals stored.');
      if (percentilesOnly) return;
      data = new ThreadSeries();
      data.add(timeline.points);
      setState('stored', `From the stored intervals: ${timeline.points.length} points, one per thread and `
        + `${formatInterval(timeline.intervalNs)}.`);
      drawThreads('No intervals stored.');
    } catch (error) {
      if (!stopped) showError('timeline', error);
    }
  }

  function watch(run) {
    source?.close();
    live = new LivePercentiles(intervalNsOf(run));
    setState('connecting', 'Connecting to the live stream…');
    source = new EventSource(liveRunUrl(runId));
    source.addEventListener('status', (event) => {
      const { status } = JSON.parse(event.data);
      setState('watching', status === 'QUEUED' ? 'Live: waiting for the run to start…' : 'Live: intervals arrive as they are stored.');
      clearError('live');
      onStatus?.(status);
    });
    source.addEventListener('progress', (event) => {
      const progress = JSON.parse(event.data);
      if (intervals === 0) onStatus?.('RUNNING'); // data streams in: the header must not say QUEUED any longer
      data.add(progress.threads);
      live.add(progress.threads);
      intervals += progress.threads.length;
      receivedCycles += progress.threads.reduce((sum, t) => sum + t.cycles, 0);
      cycles = progress.totalCycles;
      const before = cycles - receivedCycles; // stored before this page began to watch: counted, not drawn
      setState('watching', `Live: ${count(intervals)} intervals, ${count(cycles)} cycles`
        + `${before > 0 ? ` (${count(before)} of them stored before this page joined, not drawn)` : ''}`
        + `${data.trimmed ? ' (oldest points dropped)' : ''}.`);
      drawSoon();
    });
    source.addEventListener('end', (event) => {
      const { status } = JSON.parse(event.data);
      source.close();
      clearTimeout(drawTimer);
      drawTimer = null;
      if (intervals === 0) {
        loadStored(); // it ended before the stream began: draw what was stored
      } else {
        setState('ended', receivedCycles === cycles
          ? `Run ${status.toLowerCase()}: ${count(intervals)} intervals, ${count(cycles)} cycles received live.`
          : `Run ${status.toLowerCase()}: ${count(intervals)} intervals, ${count(receivedCycles)} cycles received live; `
            + `${count(cycles)} cycles stored in all (this page joined the run part way).`);
        drawLive('No intervals arrived.');
        loadStored({ percentilesOnly: true }); // exact over all threads, now that every interval is stored
      }
      onEnd?.(status);
    });
    source.onerror = () => {
      if (stopped || source.readyState !== EventSource.CLOSED) {
        if (!stopped && state.dataset.live !== 'ended') {
          setState('reconnecting', 'Live stream interrupted: reconnecting (intervals in between are not drawn)…');
        }
        return;
      }
      showError('live', new Error(`GET /${liveRunUrl(runId)}: the live stream closed`));
    };
  }

  return {
    cards: [state, h('div', { class: 'charts' }, throughput, cycleTime, percentiles)],
    /** Live while the run is queued or running, else from its stored intervals. */
    start(run) {
      runId = run.id;
      if (run.status === 'QUEUED' || run.status === 'RUNNING') {
        watch(run);
        // a tab in the background holds no stream: a browser has few connections per host, and tabs that keep
        // theirs open would starve the requests of the one in front. Back in front, it draws what was stored
        // meanwhile and follows the run again.
        pausing = () => {
          if (stopped || state.dataset.live === 'ended') return;
          if (document.hidden && source && source.readyState !== EventSource.CLOSED) {
            source.close();
            setState('paused', 'Live stream paused while this tab is in the background.');
          } else if (!document.hidden && state.dataset.live === 'paused') {
            loadStored().then(() => { if (!stopped && !document.hidden) watch(run); });
          }
        };
        document.addEventListener('visibilitychange', pausing);
      } else {
        loadStored();
      }
    },
    /** Draws the stored timeline again, unless the charts are live. */
    refresh() {
      if (runId !== null && source === null) loadStored();
    },
    stop() {
      stopped = true;
      clearTimeout(drawTimer);
      source?.close();
      if (pausing) document.removeEventListener('visibilitychange', pausing);
      ['live', 'timeline'].forEach(clearError);
    },
  };
}

function formatInterval(ns) {
  if (ns >= 1e9) return `${formatNumber(ns / 1e9)} s`;
  if (ns >= 1e6) return `${formatNumber(ns / 1e6)} ms`;
  return `${formatNumber(ns / 1e3)} µs`;
}

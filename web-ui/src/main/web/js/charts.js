// Chart.js set-up shared by every chart. Chart.js itself is the UMD build from its webjar,
// loaded by a classic script tag in index.html, so it is window.Chart here.
import { formatBytes, formatNumber, formatTime } from './format.js';

/** Every chart on screen, by name; browser tests read `window.qplabCharts.<name>.data`. */
const charts = {};
window.qplabCharts = charts;

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd',
  '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];

// Viridis stops: past ten series a categorical palette repeats, and the series (sizes,
// thread counts) are ordered anyway, so a sequential ramp shows the order instead.
const RAMP = [[68, 1, 84], [65, 68, 135], [42, 120, 142], [34, 168, 132], [122, 209, 81], [220, 227, 25]];

function rampColor(t) {
  const position = t * (RAMP.length - 1);
  const i = Math.min(Math.floor(position), RAMP.length - 2);
  const f = position - i;
  const channel = (c) => Math.round(RAMP[i][c] + f * (RAMP[i + 1][c] - RAMP[i][c]));
  return `#${[0, 1, 2].map((c) => channel(c).toString(16).padStart(2, '0')).join('')}`;
}

export function seriesColor(index, count) {
  if (count <= PALETTE.length) return PALETTE[index];
  return rampColor(index / (count - 1));
}

function withAlpha(hex, alpha) {
  const value = parseInt(hex.slice(1), 16);
  return `rgba(${(value >> 16) & 255}, ${(value >> 8) & 255}, ${value & 255}, ${alpha})`;
}

/**
 * Draws the min–max spread over the repeats of each point (its runs, n) as a faint band behind each line;
 * Chart.js has no error bars. Points carry {x, y, min, max, n}; where n = 1 the band narrows to the point.
 */
const spreadBand = {
  id: 'qplabSpreadBand',
  beforeDatasetsDraw(chart, args, options) {
    const { ctx, chartArea, scales } = chart;
    ctx.save();
    ctx.beginPath();
    ctx.rect(chartArea.left, chartArea.top, chartArea.width, chartArea.height);
    ctx.clip();
    chart.data.datasets.forEach((dataset, index) => {
      if (!chart.isDatasetVisible(index)) return;
      const points = dataset.data.filter((p) => p.y !== null && p.y !== undefined);
      if (options?.hidden || !points.some((p) => p.n > 1)) return;
      const px = (p) => scales.x.getPixelForValue(p.x);
      const spread = (p, bound) => (p.n > 1 ? p[bound] ?? p.y : p.y);
      const upper = points.map((p) => [px(p), scales.y.getPixelForValue(spread(p, 'max'))]);
      const lower = points.map((p) => [px(p), scales.y.getPixelForValue(spread(p, 'min'))]);
      ctx.fillStyle = withAlpha(dataset.borderColor, 0.1);
      ctx.strokeStyle = withAlpha(dataset.borderColor, 0.5);
      if (points.length === 1) {
        ctx.lineWidth = 2;
        ctx.beginPath();
        ctx.moveTo(...upper[0]);
        ctx.lineTo(...lower[0]);
        ctx.stroke();
        return;
      }
      ctx.beginPath();
      ctx.moveTo(...upper[0]);
      upper.slice(1).forEach((xy) => ctx.lineTo(...xy));
      lower.reverse().forEach((xy) => ctx.lineTo(...xy));
      ctx.closePath();
      ctx.fill();
    });
    ctx.restore();
  },
};

/** x axis over message sizes, log2: a tick at every power of two, labelled "64 B" … "1 MiB". */
function sizeAxis(xs, title) {
  let min = 2 ** Math.floor(Math.log2(Math.min(...xs)));
  let max = 2 ** Math.ceil(Math.log2(Math.max(...xs)));
  if (min === max) {
    min /= 2;
    max *= 2;
  }
  return {
    type: 'logarithmic',
    min,
    max,
    title: { display: true, text: title },
    afterBuildTicks(scale) {
      const ticks = [];
      for (let value = min; value <= max; value *= 2) ticks.push({ value });
      scale.ticks = ticks;
    },
    ticks: { callback: (value) => formatBytes(value), maxRotation: 0, autoSkipPadding: 12 },
  };
}

/** x axis over a count that doubles, such as fio's iodepth: log2, a tick at every power of two, plain numbers. */
function powerOfTwoAxis(xs, title) {
  const axis = sizeAxis(xs, title);
  return { ...axis, ticks: { ...axis.ticks, callback: (value) => formatNumber(value) } };
}

/** x axis over a count such as threads: linear, integer ticks, spanning the data exactly. */
function countAxis(xs, title) {
  let min = Math.min(...xs);
  let max = Math.max(...xs);
  if (min === max) {
    min -= 1;
    max += 1;
  }
  return {
    type: 'linear',
    min: Math.max(0, min),
    max,
    title: { display: true, text: title },
    ticks: { precision: 0, maxRotation: 0 },
  };
}

/** x axis of plain numbers such as seconds since the start: linear from zero. */
function linearAxis(xs, title) {
  return {
    type: 'linear',
    min: 0,
    title: { display: true, text: title },
    ticks: { maxRotation: 0, callback: (value) => formatNumber(value) },
  };
}

/** A log10 axis (cycle times in µs), ticks at 1-2-5 steps. */
function logAxis(title) {
  return {
    type: 'logarithmic',
    title: { display: true, text: title },
    ticks: {
      maxRotation: 0,
      callback(value) {
        const mantissa = value / 10 ** Math.floor(Math.log10(value) + 1e-9);
        return [1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-6) ? formatNumber(value) : null;
      },
    },
  };
}

/** Local time as the span of the axis calls for: a date, a date and minute, or the time to the second. */
function dateTick(span) {
  if (span >= 4 * 86_400_000) return (ms) => formatTime(new Date(ms).toISOString()).slice(0, 10);
  if (span >= 3_600_000) return (ms) => formatTime(new Date(ms).toISOString()).slice(5, 16);
  return (ms) => formatTime(new Date(ms).toISOString()).slice(11, 19);
}

/**
 * x axis of dates: epoch milliseconds on a linear axis (no Chart.js date adapter is loaded), ticks as local
 * dates, with the time of day (to the second) as the data span less.
 */
function timeAxis(xs, title) {
  // at least a minute wide, so that its ticks are distinct seconds
  const span = Math.max(Math.max(...xs) - Math.min(...xs), 60_000) * 1.08;
  const middle = (Math.max(...xs) + Math.min(...xs)) / 2;
  const min = middle - span / 2;
  const max = middle + span / 2;
  return {
    type: 'linear',
    min,
    max,
    title: { display: true, text: title },
    ticks: { maxRotation: 0, autoSkipPadding: 16, maxTicksLimit: 8, callback: dateTick(max - min) },
  };
}

const X_AXES = {
  size: sizeAxis,
  count: countAxis,
  pow2: powerOfTwoAxis,
  linear: linearAxis,
  log: (xs, title) => logAxis(title),
  time: timeAxis,
};

function xAxisFor(kind, xs, title) {
  return X_AXES[kind](xs, title);
}

function formatX(kind, value) {
  if (kind === 'time') return formatTime(new Date(value).toISOString());
  return kind === 'size' ? formatBytes(value) : formatNumber(value, 6);
}

function tooltipLabel(unit) {
  return (item) => {
    const point = item.raw;
    let text = `${item.dataset.label}: ${formatNumber(point.y)} ${unit}`;
    if (point.n > 1) {
      text += ` (min ${formatNumber(point.min)}, max ${formatNumber(point.max)}, n = ${point.n})`;
    }
    return text;
  };
}

/**
 * Legend entries drawn as a short line in the dataset's own dash: a flat box cannot show a
 * dash, and with point styles Chart.js takes the (undashed) point's style for the entry.
 */
const lineLegendLabels = {
  usePointStyle: true,
  pointStyle: 'line',
  pointStyleWidth: 30,
  generateLabels(chart) {
    return window.Chart.defaults.plugins.legend.labels.generateLabels(chart).map((item) => {
      const dataset = chart.data.datasets[item.datasetIndex];
      return { ...item, lineDash: dataset.borderDash, lineWidth: dataset.borderWidth, strokeStyle: dataset.borderColor };
    });
  },
};

/** PNG downloads of a transparent canvas are unreadable on dark viewers: paint the card's white. */
const whiteBackground = {
  id: 'qplabWhiteBackground',
  beforeDraw(chart) {
    const { ctx } = chart;
    ctx.save();
    ctx.globalCompositeOperation = 'destination-over';
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, chart.width, chart.height);
    ctx.restore();
  },
};

function yAxis({ yTitle, yLog }) {
  if (yLog) return logAxis(yTitle);
  return {
    type: 'linear',
    beginAtZero: true,
    title: { display: true, text: yTitle },
    ticks: { callback: (value) => formatNumber(value) },
  };
}

/**
 * Config of one line chart. `series` is [{label, points: [{x, y, min, max, n}]}] with y
 * already in the unit the y axis shows; `xKind` is 'size' (log2 bytes), 'count' (integers),
 * 'pow2' (log2 counts), 'linear' (from zero), 'log' or 'time' (epoch ms); `yLog` puts y on a log axis, else it starts
 * at zero. A series may carry `colorIndex` (of `colorCount`) to share its colour with another, `dashed` or its own
 * `dash` pattern, and `showLine: false` (points only). `spread: false` leaves out the min–max bands (the tooltip
 * still has them).
 */
function lineConfig({
  series, xKind, xTitle, yTitle, yLog = false, unit, colorCount = series.length, pointRadius = 3, spread = true,
}) {
  const xs = series.flatMap((s) => s.points.map((p) => p.x));
  const anyDashed = series.some((s) => s.dashed || s.dash?.length);
  const datasets = series.map((s, index) => ({
    label: s.label,
    data: s.points,
    borderColor: seriesColor(s.colorIndex ?? index, colorCount),
    backgroundColor: seriesColor(s.colorIndex ?? index, colorCount),
    borderDash: s.dash ?? (s.dashed ? [7, 4] : []),
    borderWidth: 2,
    pointRadius: s.pointRadius ?? pointRadius,
    showLine: s.showLine ?? true,
    tension: 0,
    clip: 6,
  }));
  return {
    type: 'line',
    data: { datasets },
    plugins: [spreadBand, whiteBackground],
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      interaction: { mode: 'nearest', intersect: false },
      scales: {
        x: xAxisFor(xKind, xs, xTitle),
        y: yAxis({ yTitle, yLog }),
      },
      plugins: {
        qplabSpreadBand: { hidden: !spread },
        legend: { position: 'top', labels: anyDashed ? lineLegendLabels : { boxWidth: 14, boxHeight: 2 } },
        tooltip: {
          callbacks: {
            title: (items) => (items.length ? formatX(xKind, items[0].raw.x) : ''),
            label: tooltipLabel(unit),
          },
        },
      },
    },
  };
}

/**
 * Creates the chart `name` on `canvas`, or updates it in place when it is already there. `spec.title`, the axis
 * titles and `spec.pinned` (the dimensions held at one value) go with the chart (chart.qplab) for its downloads.
 */
export function drawLineChart(name, canvas, spec) {
  const config = lineConfig(spec);
  const about = {
    name, title: spec.title ?? name, xTitle: spec.xTitle, yTitle: spec.yTitle, pinned: spec.pinned ?? {},
  };
  const existing = charts[name];
  if (existing && existing.canvas === canvas) {
    existing.data.datasets = config.data.datasets;
    existing.options = config.options;
    existing.qplab = about;
    existing.update('none');
    return existing;
  }
  existing?.destroy();
  if (typeof window.Chart !== 'function') {
    throw new Error('Chart.js did not load (webjars/chart.js/4.5.1/dist/chart.umd.min.js)');
  }
  charts[name] = new window.Chart(canvas, config);
  charts[name].qplab = about;
  return charts[name];
}

export function chartNamed(name) {
  return charts[name];
}

export function destroyChart(name) {
  charts[name]?.destroy();
  delete charts[name];
}

export function destroyAllCharts() {
  Object.keys(charts).forEach(destroyChart);
}

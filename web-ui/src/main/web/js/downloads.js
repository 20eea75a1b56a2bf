// Downloads of a chart: the picture (PNG of its canvas) and its data (CSV, JSON) exactly as drawn,
// with the axis titles (and so their units) in the CSV header and the JSON, and the dimensions the chart
// is pinned at (JSON "pinned", a CSV column each).
import { chartNamed } from './charts.js';
import { h } from './dom.js';

const POINT_FIELDS = ['x', 'y', 'min', 'max', 'n'];

function fileStem(chart) {
  return chart.qplab.title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || chart.qplab.name;
}

/** {title, x, y, pinned: {name: value}, series: [{label, points: [{x, y, ...}]}]} of the chart as drawn. */
export function chartData(chart) {
  return {
    title: chart.qplab.title,
    x: chart.qplab.xTitle,
    y: chart.qplab.yTitle,
    pinned: chart.qplab.pinned ?? {},
    series: chart.data.datasets.map((dataset) => ({
      label: dataset.label,
      points: dataset.data.map((point) => Object.fromEntries(Object.entries(point)
        .filter(([, value]) => typeof value === 'number' || typeof value === 'string'))),
    })),
  };
}

// The server's CSV rules (controller/.../api/Csv.java): numbers as they are; text that a spreadsheet would run
// as a formula (= + - @, tab or CR first) gets a leading '; a comma, quote, CR or LF quotes the field.
export function csvField(value) {
  let text = value === undefined || value === null ? '' : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) {
    text = `'${text}`;
  }
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * One row per point: series, x, y (headed by the axis titles), then min, max, n, any extra field (what the server
 * split lines by, the value a line moves along), and a column per pinned dimension (the same on every row).
 */
export function chartCsv(chart) {
  const data = chartData(chart);
  const pinned = Object.entries(data.pinned);
  const extra = [...new Set(data.series.flatMap((s) => s.points.flatMap(Object.keys)))]
    .filter((key) => !POINT_FIELDS.includes(key) && !(key in data.pinned));
  const header = ['series', data.x, data.y, 'min', 'max', 'n', ...extra, ...pinned.map(([name]) => name)];
  const rows = data.series.flatMap((s) => s.points.map((p) => [s.label, ...POINT_FIELDS.map((key) => p[key]),
    ...extra.map((key) => p[key]), ...pinned.map(([, value]) => value)]));
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\n') + '\n';
}

function save(filename, href) {
  const link = h('a', { href, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
}

export function saveText(filename, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  save(filename, url);
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

const FORMATS = {
  png: (chart) => save(`${fileStem(chart)}.png`, chart.toBase64Image('image/png', 1)),
  csv: (chart) => saveText(`${fileStem(chart)}.csv`, chartCsv(chart), 'text/csv'),
  json: (chart) => saveText(`${fileStem(chart)}.json`, `${JSON.stringify(chartData(chart), null, 2)}\n`,
    'application/json'),
};

/** PNG, CSV and JSON buttons for the chart `name`; they do nothing until it is drawn. */
export function downloadButtons(name) {
  return h('div', { class: 'downloads', dataset: { chart: name } },
    Object.keys(FORMATS).map((format) => h('button', {
      type: 'button',
      class: `download download-${format}`,
      title: `Download this chart as ${format.toUpperCase()}`,
      onclick: () => {
        const chart = chartNamed(name);
        if (chart) FORMATS[format](chart);
      },
    }, format.toUpperCase())));
}

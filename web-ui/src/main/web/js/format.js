// Units as the dashboard shows them. Sizes are binary (KiB), rates are decimal (Gbit/s),
// the way perftest and NIC datasheets quote them.

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

/** Up to `digits` significant digits, without trailing zeros: 1.50 → "1.5", 4.00 → "4". */
export function formatNumber(value, digits = 3) {
  if (value === null || value === undefined || Number.isNaN(value)) return '–';
  if (value === 0) return '0';
  return String(Number(value.toPrecision(digits)));
}

/** 64 → "64 B", 4096 → "4 KiB", 1536 → "1.5 KiB", 1048576 → "1 MiB". */
export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined) return '–';
  let value = Number(bytes);
  let unit = 0;
  while (Math.abs(value) >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${formatNumber(value)} ${BYTE_UNITS[unit]}`;
}

function scaled(value, units, suffix) {
  if (value === null || value === undefined) return '–';
  const abs = Math.abs(value);
  for (const [factor, prefix] of units) {
    if (abs >= factor) return `${formatNumber(value / factor)} ${prefix}${suffix}`;
  }
  const [factor, prefix] = units[units.length - 1];
  return `${formatNumber(value / factor)} ${prefix}${suffix}`;
}

const DECIMAL = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, '']];

/** Bits per second with a decimal prefix: 2.5e10 → "25 Gbit/s". */
export function formatBitsPerSecond(bitsPerSecond) {
  return scaled(bitsPerSecond, DECIMAL, 'bit/s');
}

/** The API reports bandwidth in bytes per second; charts and tables show Gbit/s. */
export function bytesPerSecondToGbit(bytesPerSecond) {
  return bytesPerSecond === null || bytesPerSecond === undefined ? null : bytesPerSecond * 8 / 1e9;
}

export function messagesPerSecondToMillions(messagesPerSecond) {
  return messagesPerSecond === null || messagesPerSecond === undefined ? null : messagesPerSecond / 1e6;
}

/** Messages per second with a decimal prefix: 1.2e6 → "1.2 Mmsg/s". */
export function formatMessageRate(messagesPerSecond) {
  return scaled(messagesPerSecond, DECIMAL, 'msg/s');
}

/** Bytes per second → MiB/s, as fio reports storage bandwidth. */
export function bytesPerSecondToMiB(bytesPerSecond) {
  return bytesPerSecond === null || bytesPerSecond === undefined ? null : bytesPerSecond / 2 ** 20;
}

/** I/Os per second → thousands of I/Os per second (kIOPS). */
export function iopsToThousands(iops) {
  return iops === null || iops === undefined ? null : iops / 1e3;
}

export function nanosToMicros(nanos) {
  return nanos === null || nanos === undefined ? null : nanos / 1000;
}

/** ISO-8601 → local "2025-01-31 14:05:09"; sortable and unambiguous in a table. */
export function formatTime(iso) {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} `
    + `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A run parameter's value as a person reads it: sizes in bytes units, the rest as is. */
export function formatParam(name, value) {
  if (['msg_size', 'inline_size', 'bs', 'size', 'backing_size'].includes(name) || name.endsWith('_bytes')) {
    return typeof value === 'number' ? formatBytes(value) : String(value);
  }
  if (value === null || value === undefined) return '–';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** Legend text of one curve: "1 thread", "2 threads", "4 KiB", "8 QPs/thread"; of several parameters' series "rc send". */
export function formatSeries(name, value) {
  switch (name) {
    case 'threads': return `${value} ${Number(value) === 1 ? 'thread' : 'threads'}`;
    case 'qps_per_thread': return `${value} ${Number(value) === 1 ? 'QP' : 'QPs'}/thread`;
    case 'msg_size': case 'bs': return formatBytes(value);
    default: return name.includes(',') ? String(value) : `${name} = ${formatParam(name, value)}`;
  }
}

/** p-values: 0.034, 0.5 — or 1.2e-30 once plain decimals would need too many zeros. */
export function formatPValue(p) {
  if (p === null || p === undefined || Number.isNaN(Number(p))) return '–';
  const value = Number(p);
  if (value === 0) return '0';
  if (value >= 0.001) return String(Number(value.toPrecision(2)));
  return value.toExponential(1).replace('e-0', 'e-').replace('.0e', 'e');
}

/** A relative change with its sign: +5.0 %, −4.8 %, 0.0 %. */
export function formatChangePercent(percent) {
  if (percent === null || percent === undefined || Number.isNaN(Number(percent))) return '–';
  const value = Number(percent);
  const text = Math.abs(value).toFixed(1);
  if (text === '0.0') return '0.0 %';
  return `${value > 0 ? '+' : '−'}${text} %`;
}

/** Seconds as a person reads them: 0.4 → "0.4 s", 45 → "45 s", 200 → "3 min 20 s", 3900 → "1 h 5 min". */
export function formatDuration(seconds) {
  if (seconds === null || seconds === undefined || Number.isNaN(Number(seconds))) return '–';
  const value = Math.max(0, Number(seconds));
  if (value < 10) return `${formatNumber(value, 2)} s`;
  const whole = Math.round(value);
  if (whole < 60) return `${whole} s`;
  if (whole < 3600) return `${Math.floor(whole / 60)} min${whole % 60 ? ` ${whole % 60} s` : ''}`;
  const minutes = Math.round((whole % 3600) / 60);
  return `${Math.floor(whole / 3600)} h${minutes ? ` ${minutes} min` : ''}`;
}

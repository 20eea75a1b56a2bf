// How the dashboard shows a run-level metric that compare and history judge: its name, its display unit
// and the conversion from the API's unit. Which metric a verdict judges is the server's choice.
import {
  bytesPerSecondToGbit, formatNumber, iopsToThousands, messagesPerSecondToMillions, nanosToMicros,
} from './format.js';

const same = (value) => value;

export const METRICS = {
  bw_avg_bps: { label: 'BW avg', unit: 'Gbit/s', toUnit: bytesPerSecondToGbit },
  msg_rate: { label: 'Msg rate', unit: 'Mmsg/s', toUnit: messagesPerSecondToMillions },
  iops: { label: 'IOPS', unit: 'kIOPS', toUnit: iopsToThousands },
  cycle_median_ns: { label: 'Cycle median', unit: 'µs', toUnit: nanosToMicros },
  cycle_p99_ns: { label: 'Cycle p99', unit: 'µs', toUnit: nanosToMicros },
  latency_typical_us: { label: 'Latency typical', unit: 'µs', toUnit: same },
  latency_p99_us: { label: 'Latency p99', unit: 'µs', toUnit: same },
};

/** A metric the table does not know yet is shown in the API's unit under its API name. */
export function metricInfo(metric, apiUnit) {
  return METRICS[metric] ?? { label: metric ?? '–', unit: apiUnit ?? '', toUnit: same };
}

/** "BW avg (Gbit/s)" */
export function metricTitle(metric, apiUnit) {
  const info = metricInfo(metric, apiUnit);
  return info.unit ? `${info.label} (${info.unit})` : info.label;
}

/** A value of `metric` in its display unit, to 3 digits. */
export function formatMetric(metric, value) {
  if (value === null || value === undefined) return '–';
  return formatNumber(metricInfo(metric).toUnit(value));
}

// Run parameters in tables: those that differ between rows get a column each, those shared
// by every row are listed once above the table ("Every run: provider=tcp, …").
import { h } from './dom.js';
import { formatParam } from './format.js';

const PREFERRED_ORDER = ['provider', 'transport', 'op', 'threads', 'qps_per_thread', 'msg_size'];

export function orderParams(names) {
  const rank = (name) => {
    const index = PREFERRED_ORDER.indexOf(name);
    return index < 0 ? PREFERRED_ORDER.length : index;
  };
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Rows carry `.params`; → {varying: [name], fixed: [[name, value]]}. */
export function splitParams(rows) {
  const names = orderParams(new Set(rows.flatMap((row) => Object.keys(row.params ?? {}))));
  const key = (value) => JSON.stringify(value ?? null);
  const varying = names.filter((name) => new Set(rows.map((row) => key(row.params?.[name]))).size > 1);
  const fixed = names.filter((name) => !varying.includes(name))
    .map((name) => [name, rows[0].params?.[name]]);
  return { varying, fixed };
}

/** [[name, value]] → "name=value, name=value" as code elements. */
export function paramList(entries) {
  return entries.map(([name, value], i) => [i > 0 ? ', ' : '',
    h('code', {}, `${name}=${formatParam(name, value)}`)]);
}

/** The "Every run: …" line, or null when no parameter is shared. */
export function fixedParamsLine(label, fixed) {
  return fixed.length > 0 ? h('p', { class: 'fixed-params' }, `${label}: `, paramList(fixed)) : null;
}

// The pin bar of the curves page: a curve point is one configuration, so every dimension that varies
// among a chart's runs and is neither its x, nor its series, nor what its line moves along is pinned to
// one value. One <select> per such dimension (#pin-qps_per_thread), each defaulting to its first value;
// every chart passes the values of the dimensions it does not draw. `hosts` (where a run ran) is a
// dimension too when it differs.
import { h } from './dom.js';
import { formatParam } from './format.js';
import { orderParams } from './params.js';

const present = (value) => value !== null && value !== undefined;

function compareValues(a, b) {
  return typeof a === 'number' && typeof b === 'number' ? a - b : String(a).localeCompare(String(b));
}

/**
 * The dimensions of these runs: [{name, values}] for every parameter (and `hosts`) with two or more values,
 * values sorted (numbers numerically). A run without the key cannot be pinned to it, so only values count.
 */
export function dimensionsOf(runs) {
  const names = orderParams(new Set(runs.flatMap((run) => Object.keys(run.params ?? {}))));
  const valuesOf = (read) => {
    const byKey = new Map();
    runs.map(read).filter(present).forEach((value) => byKey.set(JSON.stringify(value), value));
    return [...byKey.values()].sort(compareValues);
  };
  return [...names.map((name) => ({ name, values: valuesOf((run) => run.params?.[name]) })),
    { name: 'hosts', values: valuesOf((run) => run.hosts) }]
    .filter((dimension) => dimension.values.length > 1 && dimension.values.every((v) => typeof v !== 'object'));
}

/** Several families' dimensions as one list: a name once, with every value any family has. */
export function mergeDimensions(lists) {
  const merged = new Map();
  lists.flat().forEach(({ name, values }) => {
    const byKey = new Map((merged.get(name) ?? []).map((v) => [JSON.stringify(v), v]));
    values.forEach((v) => byKey.set(JSON.stringify(v), v));
    merged.set(name, [...byKey.values()].sort(compareValues));
  });
  return [...merged].map(([name, values]) => ({ name, values }));
}

/** The names a chart must pin: its runs' dimensions less x, the series keys and `along`. */
export function namesToPin(query, dimensions) {
  const drawn = new Set([query.x, ...String(query.series ?? '').split(','), query.along].filter(Boolean));
  return dimensions.map((d) => d.name).filter((name) => !drawn.has(name));
}

/** "qps_per_thread = 8, hosts = a/b" — what a chart is pinned at, for its caption. */
export function pinnedText(pinned) {
  return Object.entries(pinned ?? {}).map(([name, value]) => `${name} = ${formatParam(name, value)}`).join(', ');
}

/** → {element, update(dimensions, needed), pinsFor(query, dimensions)}; `onChange` redraws the charts. */
export function pinBar(onChange) {
  const selects = h('span', { class: 'pin-selects' });
  const element = h('div', { id: 'pin-bar', class: 'card pin-bar', hidden: true },
    h('span', { class: 'pin-bar-title', title: 'A curve point is one configuration: the parameters a chart draws on '
      + 'neither its x axis nor as its lines are fixed at these values' }, 'Each point at'),
    selects);
  /** name → {select, values: [raw value], key} */
  const shown = new Map();

  function selectFor({ name, values }) {
    const select = h('select', { id: `pin-${name}`, dataset: { dimension: name }, onchange: onChange },
      values.map((value) => h('option', { value: String(value) }, formatParam(name, value))));
    return { select, label: h('label', { class: 'pin' }, h('span', {}, name), select) };
  }

  /** Shows a select for each dimension in `needed`, keeping what the user picked while its value still exists. */
  function update(dimensions, needed) {
    const wanted = dimensions.filter((d) => needed.has(d.name));
    const key = JSON.stringify(wanted);
    if (element.dataset.dimensions === key) return;
    element.dataset.dimensions = key;
    const kept = new Map([...shown].map(([name, entry]) => [name, entry.select.value]));
    shown.clear();
    selects.replaceChildren(...wanted.map((dimension) => {
      const { select, label } = selectFor(dimension);
      const keep = kept.get(dimension.name);
      if (keep !== undefined && dimension.values.some((v) => String(v) === keep)) select.value = keep;
      shown.set(dimension.name, { select, values: dimension.values });
      return label;
    }));
    element.hidden = wanted.length === 0;
  }

  /** {name: value as stored} of the dimensions this chart pins (see namesToPin). */
  function pinsFor(query, dimensions) {
    return Object.fromEntries(namesToPin(query, dimensions).filter((name) => shown.has(name)).map((name) => {
      const { select, values } = shown.get(name);
      return [name, values.find((v) => String(v) === select.value) ?? values[0]];
    }));
  }

  return { element, update, pinsFor };
}

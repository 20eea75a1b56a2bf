// The curves of one experiment: bandwidth vs message size, throughput and message rate vs threads
// (series by a parameter the user picks) for its bandwidth runs, latency vs message size and latency
// percentiles for its latency runs, IOPS vs iodepth, latency percentiles vs IOPS and bandwidth vs block
// size for its nvmeof runs, cycle-time percentiles, the cycle-time distribution of a point's runs, and the
// runs table. Each curve point is one configuration: the pin bar fixes what a chart does not draw (pins.js).
// While the experiment or any of its runs is queued or running, the page follows its event stream
// (experiment-live.js) and reads itself again on each change, then once more at the end.
import { getCurve, getExperiment, getPairs, getSearch, listRuns } from './api.js';
import { chartCard, showChart } from './chart-card.js';
import { destroyAllCharts } from './charts.js';
import {
  bandwidthCurves, chartFamilies, countsIos, CURVES, defaultSeries, isLatencyRun, LATENCY_PERCENTILES,
  latencyPercentilesSpec, latencyVsSizeSpec, nvmeofSpecs, PERCENTILES, percentileSeries, percentilesSpec, SERIES_CHOICES,
  toSeries,
} from './curve-specs.js';
import { distributionCard } from './curves-distribution.js';
import { ACTIVE_STATUSES, h, progressBar, statusBadge, timeLeft } from './dom.js';
import { followExperiment } from './experiment-live.js';
import { experimentFailures } from './failures.js';
import { experimentExpectations } from './expectations.js';
import { formatTime } from './format.js';
import { splitParams } from './params.js';
import { dimensionsOf, mergeDimensions, namesToPin, pinBar } from './pins.js';
import { refreshLoop } from './refresh.js';
import { runsTable } from './runs.js';
import { pairHeatmapCard } from './pair-heatmap.js';
import { kneeSearchCard } from './knee-search.js';
import { cancelButton } from './cancel.js';
import { deleteExperimentButton } from './delete-experiment.js';
import { compareHash } from './compare-picker.js';
import { cloneIntoNextSubmit } from './submit.js';

function summaryLine(experiment) {
  return h('div', { class: 'summary-line' },
    statusBadge(experiment.status),
    progressBar(experiment),
    timeLeft(experiment),
    experiment.runsFailed > 0 && h('span', { class: 'failed' }, `${experiment.runsFailed} failed`),
    experiment.runsRetried > 0 && h('span', { class: 'retried', title: 'failed tries whose point was run again' },
      `${experiment.runsRetried} retried`),
    h('span', { class: 'time' }, `created ${formatTime(experiment.createdAt)}`),
    experiment.finishedAt && h('span', { class: 'time' }, `finished ${formatTime(experiment.finishedAt)}`));
}

/** Cancel while it runs, clone its matrix into the submit box, compare it with another or its baselines, delete it once ended. */
function actionButtons(experiment, refresh) {
  const clone = h('button', {
    type: 'button',
    id: 'clone-matrix',
    disabled: !experiment.matrix,
    title: 'Copy this matrix into the submit box of the experiments page, to edit and submit again',
    onclick: () => {
      cloneIntoNextSubmit(experiment.matrix, experiment.id);
      window.location.hash = '#/';
    },
  }, 'Clone matrix');
  return [
    cancelButton(experiment, refresh),
    clone,
    h('a', { id: 'compare-with', class: 'button-link', href: compareHash({ candidate: experiment.id }) },
      'Compare with…'),
    h('a', { id: 'compare-baselines', class: 'button-link', href: compareHash({ experiment: experiment.id }) },
      'Against baselines'),
    deleteExperimentButton(experiment, () => { window.location.hash = '#/'; }),
  ];
}

function seriesSelect(onChange) {
  const select = h('select', { id: 'series-by', title: 'Split the thread-scalability curves by this parameter', onchange: onChange });
  return {
    element: h('label', { class: 'series-by' }, 'series by ', select),
    select,
    /** Offers the parameters that vary (besides threads); keeps the user's pick. */
    update(varying) {
      const options = SERIES_CHOICES.filter((name) => varying.includes(name));
      const names = options.length > 0 ? options : ['msg_size'];
      const key = names.join(',');
      if (select.dataset.options !== key) {
        const keep = select.value;
        select.replaceChildren(...names.map((name) => h('option', { value: name }, name)));
        select.dataset.options = key;
        select.value = names.includes(keep) ? keep : defaultSeries(varying);
      }
      return select.value;
    },
  };
}

/** A card whose chart is against threads or message size, whichever the experiment varies, says which. */
function setTitle(card, title) {
  const caption = card.querySelector('.chart-title');
  if (caption.textContent !== title) caption.textContent = title;
  card.querySelector('canvas').setAttribute('aria-label', title);
}

/** The runs each family of charts draws: a chart pins the dimensions that vary among its family's runs. */
function familyDimensions(finished) {
  const engine = finished.filter((run) => !countsIos(run));
  const bandwidth = dimensionsOf(engine.filter((run) => !isLatencyRun(run)));
  return {
    bandwidth,
    latency: dimensionsOf(engine.filter(isLatencyRun)),
    nvmeof: dimensionsOf(finished.filter(countsIos)),
    cycles: bandwidth,
  };
}

/** What the experiment's event stream reports a change of (its status, its runs' counts and agents). */
function stateOf(experiment) {
  const { status, runsTotal, runsDone, runsFailed, runsRunning, runsRetried, agents } = experiment;
  return JSON.stringify([status, runsTotal, runsDone, runsFailed, runsRunning, runsRetried, agents]);
}

/** Renders experiment `id` into `container`; returns the function that tears it down. */
export function mountCurves(container, id) {
  let mounted = true;
  let loop = null;
  let stream = null; // the experiment's event stream, while it runs
  let polling = false; // the stream could not be held: read every 2 s instead
  let shown = null; // the state of the experiment the page last read (stateOf)
  const refresh = () => loop?.now();
  const title = h('h2', {}, `Experiment #${id}`);
  const actions = h('div', { class: 'header-actions' });
  const summary = h('div', {});
  const failures = h('div', {});
  const matrix = h('div', {});
  const runs = h('div', {}, h('p', { class: 'empty' }, 'Loading…'));
  const series = seriesSelect(refresh);
  const pins = pinBar(refresh);
  const latencyCards = {
    latencyVsSize: chartCard(latencyVsSizeSpec([])),
    latencyPercentiles: chartCard(latencyPercentilesSpec([])),
  };
  const bandwidthCards = Object.fromEntries(CURVES.map((curve) => [curve.name, chartCard({
    ...curve, controls: curve.name === 'throughputVsThreads' ? series.element : null,
  })]));
  const nvmeofCards = Object.fromEntries(Object.values(nvmeofSpecs([])).map((spec) => [spec.name, chartCard(spec)]));
  Object.values({ ...latencyCards, ...nvmeofCards }).forEach((card) => { card.hidden = true; });
  const cards = { ...nvmeofCards, ...latencyCards, ...bandwidthCards, cyclePercentiles: chartCard(percentilesSpec([])) };
  const distribution = distributionCard(() => mounted);
  const hostPairs = pairHeatmapCard();
  const kneeSearch = kneeSearchCard();
  // a card shows once it has something to draw (chart-card.js: no-data), not as "Loading…" or "No finished runs."
  [...Object.values(cards), distribution.card].forEach((card) => card.classList.add('no-data'));
  container.replaceChildren(h('section', { id: 'curves', class: 'experiment-view', dataset: { experimentId: id } },
    h('div', { class: 'card header' },
      h('a', { href: '#/', class: 'back' }, '← Experiments'),
      h('div', { class: 'title-row' }, title, actions), summary, failures, matrix),
    pins.element,
    h('div', { class: 'charts' }, kneeSearch.card, Object.values(cards), distribution.card, hostPairs.card),
    h('section', { class: 'card' }, h('h2', {}, 'Runs'), runs)));

  loop = refreshLoop(`experiment-${id}`, async () => {
    const [experiment, runList] = await Promise.all([getExperiment(id), listRuns(id)]);
    const finished = runList.filter((run) => run.status === 'FINISHED');
    const { varying } = finished.length > 0 ? splitParams(finished) : { varying: [] };
    const seriesBy = series.update(varying);
    const families = chartFamilies(runList);
    const bandwidth = bandwidthCurves(varying);
    const spec = percentilesSpec(varying);
    const latencySize = latencyVsSizeSpec(varying);
    const latencyPercentiles = latencyPercentilesSpec(varying);
    const storage = nvmeofSpecs(varying);
    const dimensions = familyDimensions(finished);
    const queries = {
      bandwidth: families.bandwidth ? bandwidth.map((curve) => curve.query(seriesBy)) : [],
      cycles: families.cycles ? PERCENTILES.map((p) => ({ x: spec.x, y: p.metric, series: spec.series })) : [],
      latencySize: families.latency ? [latencySize.query] : [],
      latencyPercentiles: families.latency ? LATENCY_PERCENTILES.map((p) => ({
        x: latencyPercentiles.x, y: p.metric, series: latencyPercentiles.series,
      })) : [],
      storage: families.nvmeof ? [storage.iopsVsIodepth.query, storage.bandwidthVsBs.query] : [],
      latencyIops: families.nvmeof ? LATENCY_PERCENTILES.map((p) => ({
        x: storage.latencyVsIops.x, y: p.metric, series: storage.latencyVsIops.series, along: storage.latencyVsIops.along,
      })) : [],
    };
    const familyOf = {
      bandwidth: 'bandwidth', cycles: 'cycles', latencySize: 'latency', latencyPercentiles: 'latency', storage: 'nvmeof',
      latencyIops: 'nvmeof',
    };
    const needed = new Set(Object.entries(queries).flatMap(([group, list]) => list
      .flatMap((query) => namesToPin(query, dimensions[familyOf[group]]))));
    pins.update(mergeDimensions(Object.values(dimensions)), needed);
    const pinned = Object.fromEntries(Object.entries(queries).map(([group, list]) => [group,
      list.map((query) => pins.pinsFor(query, dimensions[familyOf[group]]))]));
    const curvesFor = (group) => (finished.length > 0 && queries[group].length > 0
      ? Promise.all(queries[group].map((query, i) => getCurve(id, { ...query, pins: pinned[group][i] })))
      : Promise.resolve(null));
    // runs the matrix placed on pairs of hosts: the host x host heatmap
    const pairRuns = finished.some((run) => run.hosts?.includes('/'));
    const [curves, percentileCurves, latencySizeCurve, latencyPercentileCurves, storageCurves, latencyIopsCurves, pairs,
      search] = await Promise.all([
      ...['bandwidth', 'cycles', 'latencySize', 'latencyPercentiles', 'storage', 'latencyIops'].map(curvesFor),
      pairRuns ? getPairs(id) : Promise.resolve(null),
      Object.keys(experiment.matrix?.search ?? {}).length > 0 ? getSearch(id) : Promise.resolve(null),
    ]);
    if (!mounted) return false;
    title.replaceChildren(experiment.name, ' ', h('span', { class: 'muted' }, `#${experiment.id}`));
    summary.replaceChildren(summaryLine(experiment));
    failures.replaceChildren(...[experimentFailures(runList), experimentExpectations(experiment)].filter(Boolean));
    actions.replaceChildren(...actionButtons(experiment, refresh).filter(Boolean));
    if (experiment.matrix && !matrix.hasChildNodes()) {
      matrix.append(h('details', { class: 'matrix' }, h('summary', {}, 'Matrix'),
        h('pre', {}, JSON.stringify(experiment.matrix, null, 2))));
    }
    const running = ACTIVE_STATUSES.has(experiment.status);
    const emptyText = null; // a chart with nothing to draw is not shown; the runs table says where the runs are
    Object.values(bandwidthCards).forEach((card) => { card.hidden = !families.bandwidth; });
    bandwidthCards.throughputVsThreads.hidden = !families.bandwidth || !bandwidth.some((c) => c.name === 'throughputVsThreads');
    const rate = bandwidth.find((curve) => curve.name === 'msgRateVsThreads');
    setTitle(bandwidthCards.msgRateVsThreads, rate.title);
    bandwidthCards.msgRateVsThreads.classList.toggle('wide', bandwidthCards.throughputVsThreads.hidden);
    Object.values(latencyCards).forEach((card) => { card.hidden = !families.latency; });
    Object.values(nvmeofCards).forEach((card) => { card.hidden = !families.nvmeof; });
    cards.cyclePercentiles.hidden = !families.cycles;
    if (families.nvmeof) {
      [storage.iopsVsIodepth, storage.bandwidthVsBs].forEach((chart, i) => showChart(nvmeofCards[chart.name], chart.name,
        storageCurves && {
          series: toSeries(storageCurves[i], chart.toUnit), xKind: chart.xKind, xTitle: chart.xTitle, yTitle: chart.yTitle,
          unit: chart.unit, pinned: pinned.storage[i],
        }, emptyText));
      const latencyIops = storage.latencyVsIops;
      showChart(nvmeofCards[latencyIops.name], latencyIops.name, latencyIopsCurves && {
        ...percentileSeries(latencyIopsCurves, { percentiles: LATENCY_PERCENTILES, toUnit: (us) => us, bareWhenSingle: true }),
        xKind: latencyIops.xKind, xTitle: latencyIops.xTitle, yTitle: latencyIops.yTitle, yLog: true, unit: latencyIops.unit,
        spread: false, pinned: pinned.latencyIops[0],
      }, emptyText);
    }
    if (families.bandwidth) {
      bandwidth.forEach((curve, i) => showChart(bandwidthCards[curve.name], curve.name, curves?.[i] && {
        series: toSeries(curves[i], curve.toUnit), xKind: curve.xKind, xTitle: curve.xTitle, yTitle: curve.yTitle,
        yLog: curve.yLog, unit: curve.unit, pinned: pinned.bandwidth[i],
      }, emptyText));
    }
    if (families.latency) {
      setTitle(latencyCards.latencyPercentiles, latencyPercentiles.title);
      showChart(latencyCards.latencyVsSize, latencySize.name, latencySizeCurve && {
        series: toSeries(latencySizeCurve[0], latencySize.toUnit), xKind: latencySize.xKind, xTitle: latencySize.xTitle,
        yTitle: latencySize.yTitle, yLog: true, unit: latencySize.unit, pinned: pinned.latencySize[0],
      }, emptyText);
      showChart(latencyCards.latencyPercentiles, latencyPercentiles.name, latencyPercentileCurves && {
        ...percentileSeries(latencyPercentileCurves, { percentiles: LATENCY_PERCENTILES, toUnit: (us) => us, bareWhenSingle: true }),
        xKind: latencyPercentiles.xKind, xTitle: latencyPercentiles.xTitle, yTitle: latencyPercentiles.yTitle, yLog: true,
        unit: latencyPercentiles.unit, spread: false, pinned: pinned.latencyPercentiles[0],
      }, emptyText);
    }
    if (families.cycles) showChart(cards.cyclePercentiles, spec.name, percentileCurves && {
      ...percentileSeries(percentileCurves), xKind: spec.xKind, xTitle: spec.xTitle, yTitle: spec.yTitle, yLog: true, unit: spec.unit,
      spread: false, // six bands over each other hide the lines; the tooltip gives min and max
      pinned: pinned.cycles[0],
    }, emptyText);
    // only runs that kept intervals have a histogram (an import has none)
    distribution.update(finished.filter((run) => run.cyclesStored > 0), varying, emptyText);
    hostPairs.update(pairs);
    kneeSearch.update(search);
    runs.replaceChildren(runsTable(runList, refresh));
    // until the experiment and every one of its runs has ended: a cancelled experiment's runs end after it does,
    // so the read that first sees them all ended is the final one
    const active = running || runList.some((run) => ACTIVE_STATUSES.has(run.status));
    shown = stateOf(experiment);
    if (active && stream === null && !polling) {
      stream = followExperiment(id, {
        // the stream's first event is the state the page may have just read: read again only on a change
        onChange: (now) => { if (stateOf(now) !== shown) refresh(); },
        onEnd: refresh, // the final read
        onLost: () => {
          polling = true;
          refresh();
        },
      });
    }
    return active && polling;
  });

  return () => {
    mounted = false;
    stream?.stop();
    loop.stop();
    destroyAllCharts();
  };
}

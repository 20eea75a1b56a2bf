package org.qplab.controller.history;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.history.ComparisonRepository.FinishedRun;
import org.qplab.controller.run.Fingerprint;
import org.springframework.stereotype.Service;

/**
 * Compares experiments, runs, or either against the baselines of their fingerprints: pairs configurations
 * (equal but for the across parameters) and judges each pair over its runs ({@link RunLevelTest}). Blocking.
 */
@Service
public class ComparisonService {

    /** How a comparison judges: significance level, practical threshold in %, parameters allowed to differ, metric. */
    public record Options(double alpha, double thresholdPercent, List<String> across, String metric) {
        public Options {
            across = List.copyOf(across);
        }
    }

    /** The newest earlier runs of a fingerprint that make its noise model (tens of experiments: Otava looks at 50). */
    static final int HISTORY_WINDOW = 200;

    private final ComparisonRepository repository;

    public ComparisonService(ComparisonRepository repository) {
        this.repository = repository;
    }

    /** Two experiments, their finished runs paired by configuration, equal but for the across parameters. */
    public Comparison compare(long baselineId, long candidateId, Options options) {
        var baseline = experimentSide(baselineId);
        var candidate = experimentSide(candidateId);
        Map<Map<String, Object>, List<FinishedRun>> before = byConfiguration(repository.finishedRuns(baselineId));
        Map<Map<String, Object>, List<FinishedRun>> after = byConfiguration(repository.finishedRuns(candidateId));
        Function<Map<String, Object>, Map<String, Object>> reduced = config -> without(config, options.across());
        Map<Map<String, Object>, List<Map<String, Object>>> partners = new LinkedHashMap<>();
        after.keySet().forEach(config -> partners.computeIfAbsent(reduced.apply(config), k -> new ArrayList<>()).add(config));

        List<Comparison.Point> points = new ArrayList<>();
        List<Map<String, Object>> baselineOnly = new ArrayList<>();
        Set<Map<String, Object>> paired = new HashSet<>();
        for (var entry : before.entrySet()) {
            List<Map<String, Object>> others = partners.getOrDefault(reduced.apply(entry.getKey()), List.of());
            if (others.isEmpty()) {
                baselineOnly.add(entry.getKey());
            }
            for (Map<String, Object> other : others) {
                paired.add(other);
                points.add(point(entry.getKey(), differing(entry.getKey(), other), entry.getValue(), after.get(other),
                        options, null));
            }
        }
        List<Map<String, Object>> candidateOnly = after.keySet().stream().filter(k -> !paired.contains(k)).toList();
        return new Comparison(baseline, candidate, options.alpha(), options.thresholdPercent(), 1 - options.alpha(),
                RunLevelTest.MIN_RUNS, options.across(), suggestAcross(before.keySet(), after.keySet(), options.across()),
                mismatches(flatten(before.values()), flatten(after.values())), List.of(), points, baselineOnly,
                candidateOnly);
    }

    /** Two finished runs, paired whatever their parameters; those that differ are listed. */
    public Comparison compareRuns(long baselineRunId, long candidateRunId, Options options) {
        FinishedRun before = finished(baselineRunId);
        FinishedRun after = finished(candidateRunId);
        List<Comparison.ParamMismatch> params = differing(Fingerprint.withImpliedDefaults(before.params()),
                Fingerprint.withImpliedDefaults(after.params()));
        return new Comparison(runSide(before), runSide(after), options.alpha(), options.thresholdPercent(),
                1 - options.alpha(), RunLevelTest.MIN_RUNS, List.of(), List.of(), mismatches(List.of(before), List.of(after)),
                params, List.of(point(after.params(), List.of(), List.of(before), List.of(after), options, null)),
                List.of(), List.of());
    }

    /** An experiment's finished runs, or one run, against the baselines of their fingerprints. */
    public BaselineComparison againstBaselines(Long experimentId, Long runId, Options options) {
        Comparison.Side side;
        List<FinishedRun> runs;
        if (runId != null) {
            FinishedRun run = finished(runId);
            side = runSide(run);
            runs = List.of(run);
        } else {
            side = experimentSide(experimentId);
            runs = repository.finishedRuns(experimentId);
        }
        Map<String, List<FinishedRun>> byFingerprint = new LinkedHashMap<>();
        runs.forEach(r -> byFingerprint.computeIfAbsent(r.fingerprint(), k -> new ArrayList<>()).add(r));
        Map<String, FinishedRun> baselines = repository.baselines(byFingerprint.keySet());

        List<Comparison.Point> points = new ArrayList<>();
        List<BaselineComparison.WithoutBaseline> without = new ArrayList<>();
        byFingerprint.forEach((fingerprint, group) -> {
            FinishedRun baseline = baselines.get(fingerprint);
            if (baseline == null) {
                without.add(new BaselineComparison.WithoutBaseline(fingerprint, group.get(0).params(),
                        group.stream().map(FinishedRun::id).toList()));
            } else {
                List<FinishedRun> candidates = group.stream().filter(r -> r.id() != baseline.id()).toList();
                if (!candidates.isEmpty()) { // the baseline itself is not its own candidate
                    points.add(point(group.get(0).params(), List.of(), List.of(baseline), candidates, options, baseline));
                }
            }
        });
        return new BaselineComparison(side, options.alpha(), options.thresholdPercent(), 1 - options.alpha(),
                RunLevelTest.MIN_RUNS, points, without);
    }

    private Comparison.Point point(Map<String, Object> params, List<Comparison.ParamMismatch> differing,
                                   List<FinishedRun> before, List<FinishedRun> after, Options options,
                                   FinishedRun baselineRun) {
        Metric primary = options.metric() != null ? Metric.byName(options.metric()).orElseThrow()
                : Metric.defaultFor(params);
        List<FinishedRun> history = history(before, after);
        List<Comparison.Judgment> judgments = new ArrayList<>();
        for (String name : judged(primary, params)) {
            List<Double> a = values(before, name);
            List<Double> b = values(after, name);
            if (name.equals(primary.name()) || !a.isEmpty() || !b.isEmpty()) {
                judgments.add(RunLevelTest.judge(Metric.byName(name).orElseThrow(), a, b, byExperiment(history, name),
                        options.alpha(), options.thresholdPercent()));
            }
        }
        Comparison.Judgment verdict = judgments.get(0);
        return new Comparison.Point(params, differing, verdict.metric(), verdict.verdict(), verdict.changePercent(),
                verdict.ciLowPercent(), verdict.ciHighPercent(), verdict.pValue(), verdict.method(), verdict.noiseRuns(),
                verdict.noiseExperiments(), verdict.driftPercent(), judgments, stats(before, judgments, true), stats(after, judgments, false),
                change(judgments, "bw_avg_bps"), change(judgments, "cycle_median_ns"),
                baselineRun == null ? majorityFingerprint(before) : baselineRun.fingerprint(),
                baselineRun == null ? null : baselineRun.id(), baselineRun == null ? null : baselineRun.experimentId(),
                counterChanges(before, after));
    }

    /** The primary metric first, then the others a run of these parameters measures (IOPS or messages, not both). */
    private static List<String> judged(Metric primary, Map<String, Object> params) {
        String notThisKind = Metric.notMeasured(params);
        List<String> names = new ArrayList<>(List.of(primary.name()));
        Metric.JUDGED.stream().filter(name -> !name.equals(primary.name()) && !name.equals(notThisKind)).forEach(names::add);
        return names;
    }

    /**
     * The baseline fingerprint's earlier finished runs, not the candidate's, newest first: how far its experiments
     * drift apart, and with too few runs a side the noise model itself. The fingerprint most of the baseline's
     * runs have.
     */
    private List<FinishedRun> history(List<FinishedRun> before, List<FinishedRun> after) {
        String fingerprint = majorityFingerprint(before);
        OffsetDateTime latest = after.stream().map(FinishedRun::finishedAt).filter(Objects::nonNull)
                .max(Comparator.naturalOrder()).orElse(OffsetDateTime.now());
        return repository.history(fingerprint, ids(after), latest, HISTORY_WINDOW);
    }

    /** The fingerprint most of these runs have (the earliest of the most common, for a tie). */
    private static String majorityFingerprint(List<FinishedRun> runs) {
        Map<String, Long> counts = runs.stream().collect(Collectors.groupingBy(FinishedRun::fingerprint,
                LinkedHashMap::new, Collectors.counting()));
        return counts.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey).orElseThrow();
    }

    /** The runs' values of the metric, one list per experiment (in the order the runs come). */
    private static List<List<Double>> byExperiment(List<FinishedRun> runs, String metric) {
        Map<Long, List<Double>> experiments = new LinkedHashMap<>();
        runs.forEach(r -> {
            if (r.metric(metric) != null) {
                experiments.computeIfAbsent(r.experimentId(), k -> new ArrayList<>()).add(r.metric(metric));
            }
        });
        return List.copyOf(experiments.values());
    }

    private static List<Double> values(List<FinishedRun> runs, String metric) {
        return runs.stream().map(r -> r.metric(metric)).filter(Objects::nonNull).toList();
    }

    private static Double change(List<Comparison.Judgment> judgments, String metric) {
        return judgments.stream().filter(j -> j.metric().equals(metric)).findFirst()
                .map(Comparison.Judgment::changePercent).orElse(null);
    }

    private Comparison.Stats stats(List<FinishedRun> runs, List<Comparison.Judgment> judgments, boolean baseline) {
        Function<String, Double> geomean = metric -> judgments.stream().filter(j -> j.metric().equals(metric))
                .findFirst().map(j -> baseline ? j.baseline() : j.candidate()).map(Comparison.Sample::geomean).orElse(null);
        return new Comparison.Stats(runs.size(), runs.stream().mapToLong(FinishedRun::cycles).sum(),
                geomean.apply("bw_avg_bps"), geomean.apply(judgments.stream().anyMatch(j -> j.metric().equals("iops"))
                ? "iops" : "msg_rate"), geomean.apply("cycle_median_ns"), geomean.apply("latency_typical_us"),
                geomean.apply("latency_p99_us"), repository.shape(ids(runs)));
    }

    /** The counters whose mean deltas differ between the two sides' runs (both 0, or equal: not listed). */
    static List<Comparison.CounterChange> counterChanges(List<FinishedRun> before, List<FinishedRun> after) {
        Set<String> warned = new TreeSet<>();
        Set<List<String>> keys = new TreeSet<>(Comparator.comparing((List<String> k) -> k.get(0))
                .thenComparing(k -> k.get(1)));
        for (List<FinishedRun> runs : List.of(before, after)) {
            runs.forEach(r -> {
                warned.addAll(r.warned());
                r.counters().forEach((side, deltas) -> deltas.keySet().forEach(name -> keys.add(List.of(side, name))));
            });
        }
        List<Comparison.CounterChange> changes = new ArrayList<>();
        for (List<String> key : keys) {
            Double a = meanDelta(before, key.get(0), key.get(1));
            Double b = meanDelta(after, key.get(0), key.get(1));
            if (!Objects.equals(a, b)) {
                changes.add(new Comparison.CounterChange(key.get(0), key.get(1), a, b, warned.contains(key.get(1))));
            }
        }
        changes.sort(Comparator.comparing((Comparison.CounterChange c) -> !c.warning()));
        return changes;
    }

    private static Double meanDelta(List<FinishedRun> runs, String side, String counter) {
        var values = runs.stream().map(r -> r.counters().getOrDefault(side, Map.of()).get(counter))
                .filter(Objects::nonNull).mapToDouble(Number::doubleValue).average();
        return values.isPresent() ? values.getAsDouble() : null;
    }

    private Comparison.Side experimentSide(long id) {
        return new Comparison.Side(id, repository.experimentName(id).orElseThrow(() -> new NotFound("no experiment " + id)), null);
    }

    private Comparison.Side runSide(FinishedRun run) {
        return new Comparison.Side(run.experimentId(), repository.experimentName(run.experimentId()).orElseThrow(), run.id());
    }

    /** 404 for no such run, 409 for one that has not finished. */
    private FinishedRun finished(long runId) {
        String[] found = repository.runStatusAndExperimentName(runId).orElseThrow(() -> new NotFound("no run " + runId));
        return repository.finishedRun(runId).orElseThrow(() -> new Conflict("run " + runId + " is " + found[0]
                + ": only finished runs compare"));
    }

    private static List<Comparison.Mismatch> mismatches(List<FinishedRun> before, List<FinishedRun> after) {
        List<Comparison.Mismatch> mismatches = new ArrayList<>();
        for (String fact : Fingerprint.HOST_FACTS) {
            Set<String> a = values(before, fact, r -> Fingerprint.host(r.hostFacts()));
            Set<String> b = values(after, fact, r -> Fingerprint.host(r.hostFacts()));
            if (!a.equals(b)) {
                mismatches.add(new Comparison.Mismatch(fact, List.copyOf(a), List.copyOf(b)));
            }
        }
        return mismatches;
    }

    /** The parameters whose values on the two sides do not overlap at all, less those already across. */
    private static List<String> suggestAcross(Set<Map<String, Object>> before, Set<Map<String, Object>> after,
                                              List<String> across) {
        Set<String> names = new TreeSet<>();
        before.forEach(c -> names.addAll(c.keySet()));
        after.forEach(c -> names.addAll(c.keySet()));
        return names.stream().filter(name -> !across.contains(name)).filter(name -> {
            Set<String> a = before.stream().map(c -> String.valueOf(c.get(name))).collect(Collectors.toSet());
            Set<String> b = after.stream().map(c -> String.valueOf(c.get(name))).collect(Collectors.toSet());
            return !a.isEmpty() && !b.isEmpty() && a.stream().noneMatch(b::contains);
        }).toList();
    }

    /** The parameters whose values differ between two configurations, by name. */
    private static List<Comparison.ParamMismatch> differing(Map<String, Object> before, Map<String, Object> after) {
        Set<String> names = new TreeSet<>(before.keySet());
        names.addAll(after.keySet());
        return names.stream().filter(name -> !Objects.equals(before.get(name), after.get(name)))
                .map(name -> new Comparison.ParamMismatch(name, before.get(name), after.get(name))).toList();
    }

    private static Set<String> values(List<FinishedRun> runs, String key, Function<FinishedRun, Map<String, Object>> of) {
        Set<String> values = new TreeSet<>();
        runs.forEach(r -> values.add(String.valueOf(of.apply(r).get(key))));
        return values;
    }

    private static Map<String, Object> without(Map<String, Object> config, List<String> names) {
        if (names.isEmpty()) {
            return config;
        }
        Map<String, Object> reduced = new LinkedHashMap<>(config);
        names.forEach(reduced::remove);
        return reduced;
    }

    private static List<FinishedRun> flatten(Iterable<List<FinishedRun>> groups) {
        List<FinishedRun> all = new ArrayList<>();
        groups.forEach(all::addAll);
        return all;
    }

    /** Runs by configuration: parameters with implied defaults (a run stored before a parameter existed pairs). */
    private static Map<Map<String, Object>, List<FinishedRun>> byConfiguration(List<FinishedRun> runs) {
        Map<Map<String, Object>, List<FinishedRun>> groups = new LinkedHashMap<>();
        runs.forEach(r -> groups.computeIfAbsent(Fingerprint.withImpliedDefaults(r.params()), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private static List<Long> ids(List<FinishedRun> runs) {
        return runs.stream().map(FinishedRun::id).toList();
    }
}

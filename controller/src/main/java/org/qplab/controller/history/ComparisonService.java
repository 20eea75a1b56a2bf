package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.history.ComparisonRepository.FinishedRun;
import org.springframework.stereotype.Service;

/**
 * Compares experiments, runs, or either against the baselines of their fingerprints: pairs runs,
 * tests each pair's per-cycle times (Mann–Whitney) and gives each point a verdict. Blocking.
 */
@Service
public class ComparisonService {

    private final ComparisonRepository repository;

    public ComparisonService(ComparisonRepository repository) {
        this.repository = repository;
    }

    /** Two experiments, their finished runs paired by parameters. */
    public Comparison compare(long baselineId, long candidateId, double alpha, double thresholdPercent) {
        var baseline = experimentSide(baselineId);
        var candidate = experimentSide(candidateId);
        Map<Map<String, Object>, List<FinishedRun>> before = byParams(repository.finishedRuns(baselineId));
        Map<Map<String, Object>, List<FinishedRun>> after = byParams(repository.finishedRuns(candidateId));

        List<Comparison.Point> points = new ArrayList<>();
        List<Map<String, Object>> baselineOnly = new ArrayList<>();
        for (var entry : before.entrySet()) {
            List<FinishedRun> other = after.get(entry.getKey());
            if (other == null) {
                baselineOnly.add(entry.getKey());
            } else {
                points.add(point(entry.getKey(), entry.getValue(), other, alpha, thresholdPercent, null));
            }
        }
        List<Map<String, Object>> candidateOnly = after.keySet().stream().filter(k -> !before.containsKey(k)).toList();
        return new Comparison(baseline, candidate, alpha, thresholdPercent,
                mismatches(flatten(before.values()), flatten(after.values())), List.of(), points, baselineOnly, candidateOnly);
    }

    /** Two finished runs, paired whatever their parameters; those that differ are listed. */
    public Comparison compareRuns(long baselineRunId, long candidateRunId, double alpha, double thresholdPercent) {
        FinishedRun before = finished(baselineRunId);
        FinishedRun after = finished(candidateRunId);
        List<Comparison.ParamMismatch> params = new ArrayList<>();
        Map<String, Object> beforeParams = Fingerprint.withImpliedDefaults(before.params());
        Map<String, Object> afterParams = Fingerprint.withImpliedDefaults(after.params());
        new TreeSet<>(union(beforeParams.keySet(), afterParams.keySet())).forEach(name -> {
            Object a = beforeParams.get(name);
            Object b = afterParams.get(name);
            if (!Objects.equals(a, b)) {
                params.add(new Comparison.ParamMismatch(name, a, b));
            }
        });
        return new Comparison(runSide(before), runSide(after), alpha, thresholdPercent,
                mismatches(List.of(before), List.of(after)), params,
                List.of(point(after.params(), List.of(before), List.of(after), alpha, thresholdPercent, null)),
                List.of(), List.of());
    }

    /** An experiment's finished runs, or one run, against the baselines of their fingerprints. */
    public BaselineComparison againstBaselines(Long experimentId, Long runId, double alpha, double thresholdPercent) {
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
                    points.add(point(group.get(0).params(), List.of(baseline), candidates, alpha, thresholdPercent, baseline));
                }
            }
        });
        return new BaselineComparison(side, alpha, thresholdPercent, points, without);
    }

    private Comparison.Point point(Map<String, Object> params, List<FinishedRun> before, List<FinishedRun> after,
                                   double alpha, double thresholdPercent, FinishedRun baselineRun) {
        Comparison.Stats a = stats(before);
        Comparison.Stats b = stats(after);
        MannWhitney.Counts first = repository.cycleTimes(ids(before));
        MannWhitney.Counts second = repository.cycleTimes(ids(after));
        Double cycleChange = percent(a.cycleMedianNs(), b.cycleMedianNs());
        Double p = null;
        String verdict;
        if (first.total() == 0 || second.total() == 0) {
            // runs imported from perftest have no per-cycle times to test
            verdict = "untested: no per-cycle samples on the " + (first.total() == 0 ? "baseline" : "candidate") + " side";
        } else {
            p = MannWhitney.test(first, second).pValue();
            verdict = p >= alpha || cycleChange == null || Math.abs(cycleChange) < thresholdPercent ? "no change"
                    : cycleChange > 0 ? "regression" : "improvement";
        }
        return new Comparison.Point(params, a, b, percent(a.bwAvgBps(), b.bwAvgBps()), cycleChange, p, verdict,
                baselineRun == null ? null : baselineRun.fingerprint(),
                baselineRun == null ? null : baselineRun.id(), baselineRun == null ? null : baselineRun.experimentId(),
                counterChanges(before, after));
    }

    /** The counters whose mean deltas differ between the two sides' runs (both 0, or equal: not listed). */
    static List<Comparison.CounterChange> counterChanges(List<FinishedRun> before, List<FinishedRun> after) {
        Set<String> warned = new TreeSet<>();
        Set<List<String>> keys = new TreeSet<>(java.util.Comparator.comparing((List<String> k) -> k.get(0))
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
        changes.sort(java.util.Comparator.comparing((Comparison.CounterChange c) -> !c.warning()));
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

    private static Comparison.Stats stats(List<FinishedRun> runs) {
        return new Comparison.Stats(runs.size(), runs.stream().mapToLong(FinishedRun::cycles).sum(),
                mean(runs, FinishedRun::bwAvgBps), mean(runs, FinishedRun::msgRate), mean(runs, FinishedRun::cycleMedianNs));
    }

    /** The mean of what was measured; null when no run measured it (e.g. cycle times of a perftest BW import). */
    private static Double mean(List<FinishedRun> runs, java.util.function.Function<FinishedRun, Double> metric) {
        var values = runs.stream().map(metric).filter(java.util.Objects::nonNull).mapToDouble(Double::doubleValue);
        var average = values.average();
        return average.isPresent() ? average.getAsDouble() : null;
    }

    private static List<Comparison.Mismatch> mismatches(List<FinishedRun> before, List<FinishedRun> after) {
        List<Comparison.Mismatch> mismatches = new ArrayList<>();
        for (String fact : Fingerprint.HOST_FACTS) {
            Set<String> a = values(before, fact);
            Set<String> b = values(after, fact);
            if (!a.equals(b)) {
                mismatches.add(new Comparison.Mismatch(fact, List.copyOf(a), List.copyOf(b)));
            }
        }
        return mismatches;
    }

    private static Set<String> values(List<FinishedRun> runs, String fact) {
        Set<String> values = new TreeSet<>();
        runs.forEach(r -> values.add(String.valueOf(Fingerprint.host(r.hostFacts()).get(fact))));
        return values;
    }

    private static List<FinishedRun> flatten(Iterable<List<FinishedRun>> groups) {
        List<FinishedRun> all = new ArrayList<>();
        groups.forEach(all::addAll);
        return all;
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new TreeSet<>(a);
        all.addAll(b);
        return all;
    }

    private static Map<Map<String, Object>, List<FinishedRun>> byParams(List<FinishedRun> runs) {
        Map<Map<String, Object>, List<FinishedRun>> groups = new LinkedHashMap<>();
        runs.forEach(r -> groups.computeIfAbsent(Fingerprint.withImpliedDefaults(r.params()), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private static List<Long> ids(List<FinishedRun> runs) {
        return runs.stream().map(FinishedRun::id).toList();
    }

    private static Double percent(Double before, Double after) {
        if (before == null || after == null) {
            return null;
        }
        return before == 0 ? 0 : (after - before) / before * 100;
    }
}

package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.history.ComparisonRepository.FinishedRun;
import org.springframework.stereotype.Service;

/** Pairs two experiments' runs by parameters and tests each pair's per-cycle times. Blocking. */
@Service
public class ComparisonService {

    /** Host facts that make two runs unlike when they differ. */
    static final List<String> FINGERPRINT_FACTS = List.of("kernel", "cpu_model", "cpus", "memory_kib", "os", "java", "engine");

    private final ComparisonRepository repository;

    public ComparisonService(ComparisonRepository repository) {
        this.repository = repository;
    }

    public Comparison compare(long baselineId, long candidateId, double alpha, double thresholdPercent) {
        var baseline = new Comparison.Side(baselineId, repository.experimentName(baselineId)
                .orElseThrow(() -> new NotFound("no experiment " + baselineId)));
        var candidate = new Comparison.Side(candidateId, repository.experimentName(candidateId)
                .orElseThrow(() -> new NotFound("no experiment " + candidateId)));
        Map<Map<String, Object>, List<FinishedRun>> before = byParams(repository.finishedRuns(baselineId));
        Map<Map<String, Object>, List<FinishedRun>> after = byParams(repository.finishedRuns(candidateId));

        List<Comparison.Point> points = new ArrayList<>();
        List<Map<String, Object>> baselineOnly = new ArrayList<>();
        for (var entry : before.entrySet()) {
            List<FinishedRun> other = after.get(entry.getKey());
            if (other == null) {
                baselineOnly.add(entry.getKey());
            } else {
                points.add(point(entry.getKey(), entry.getValue(), other, alpha, thresholdPercent));
            }
        }
        List<Map<String, Object>> candidateOnly = after.keySet().stream().filter(k -> !before.containsKey(k)).toList();
        return new Comparison(baseline, candidate, alpha, thresholdPercent,
                mismatches(before.values(), after.values()), points, baselineOnly, candidateOnly);
    }

    private Comparison.Point point(Map<String, Object> params, List<FinishedRun> before, List<FinishedRun> after,
                                   double alpha, double thresholdPercent) {
        Comparison.Stats a = stats(before);
        Comparison.Stats b = stats(after);
        double p = MannWhitney.test(repository.cycleTimes(ids(before)), repository.cycleTimes(ids(after))).pValue();
        double cycleChange = percent(a.cycleMedianNs(), b.cycleMedianNs());
        String verdict = p >= alpha || Math.abs(cycleChange) < thresholdPercent ? "no change"
                : cycleChange > 0 ? "regression" : "improvement";
        return new Comparison.Point(params, a, b, percent(a.bwAvgBps(), b.bwAvgBps()), cycleChange, p, verdict);
    }

    private static Comparison.Stats stats(List<FinishedRun> runs) {
        return new Comparison.Stats(runs.size(), runs.stream().mapToLong(FinishedRun::cycles).sum(),
                runs.stream().mapToDouble(FinishedRun::bwAvgBps).average().orElse(0),
                runs.stream().mapToDouble(FinishedRun::msgRate).average().orElse(0),
                runs.stream().mapToDouble(FinishedRun::cycleMedianNs).average().orElse(0));
    }

    private static List<Comparison.Mismatch> mismatches(Iterable<List<FinishedRun>> before, Iterable<List<FinishedRun>> after) {
        List<Comparison.Mismatch> mismatches = new ArrayList<>();
        for (String fact : FINGERPRINT_FACTS) {
            Set<String> a = values(before, fact);
            Set<String> b = values(after, fact);
            if (!a.equals(b)) {
                mismatches.add(new Comparison.Mismatch(fact, List.copyOf(a), List.copyOf(b)));
            }
        }
        return mismatches;
    }

    private static Set<String> values(Iterable<List<FinishedRun>> groups, String fact) {
        Set<String> values = new TreeSet<>();
        groups.forEach(runs -> runs.forEach(r -> values.add(String.valueOf(r.hostFacts().get(fact)))));
        return values;
    }

    private static Map<Map<String, Object>, List<FinishedRun>> byParams(List<FinishedRun> runs) {
        Map<Map<String, Object>, List<FinishedRun>> groups = new LinkedHashMap<>();
        runs.forEach(r -> groups.computeIfAbsent(r.params(), k -> new ArrayList<>()).add(r));
        return groups;
    }

    private static List<Long> ids(List<FinishedRun> runs) {
        return runs.stream().map(FinishedRun::id).toList();
    }

    private static double percent(double before, double after) {
        return before == 0 ? 0 : (after - before) / before * 100;
    }
}

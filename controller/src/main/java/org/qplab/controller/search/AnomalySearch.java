package org.qplab.controller.search;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Predicate;

/**
 * The planner of {@code search: anomalies} (issue 37), after Collie (NSDI'22): a seeded walk over a few dimensions of a
 * run, each point judged against its neighbours (the points that differ from it in one dimension by one step), and
 * each anomaly it finds reduced to its minimal feature set.
 *
 * <p><b>What a neighbour leads one to expect.</b> Bandwidth does not fall when a numeric dimension grows (larger
 * messages, more connections, deeper queues), and it falls at most in proportion when one shrinks (the message rate
 * does not fall with smaller messages). So a neighbour n with less of the dimension than p expects p's bandwidth to be
 * at least n's; one with more expects at least n's scaled down by the ratio, p's value / n's (for msg_size: n's
 * message rate); a neighbour in a dimension of choices (cq_mode, transport, op) expects n's. A point is <b>below</b>
 * when its metric is under {@code below} x the best expectation of the neighbours seen; it is <b>warned</b> when the
 * NIC counters its runs read warned (retransmission, out-of-sequence, RNR, CNP: the engine's summary warnings that are
 * not host-wide) in more than half of them.
 *
 * <p><b>The walk.</b> From the base point (every dimension at its reset value), each step runs once an unseen
 * neighbour of the current point, preferring those that cover the most pairs of values no point has had yet (an
 * anomaly of two dimensions hides at one pair; ties drawn from the seed), and restarts at the unseen neighbour of any
 * seen point that covers most when the current point has none that covers any. A point seen only beside neighbours
 * with more of a dimension is judged on a weak expectation (scaled down by the step): when it is under below x such a
 * neighbour's own value yet not flagged, the walk first runs one of its neighbours a step down, which judges it
 * fully (an anomaly entered from above would otherwise pass as the bottom of a rising curve). The walk moves to the
 * new point when its score (metric / best expectation) is no higher than the current's, or by chance, as annealing
 * does, with probability exp(-(rise) / T), T falling from 0.1 to 0 as the runs are spent: it lingers where points
 * look bad. It stops while enough runs remain to examine an anomaly found last.
 *
 * <p><b>Examination.</b> After each step, every seen point that is below or warned (lowest score first) is confirmed
 * by its repeats (judged on their median), then reduced: each dimension not at its reset value is set back to it, one
 * at a time; each such point is run with its repeats, and, so that it too is judged against neighbours, its neighbour
 * one step down in every dimension (once). The minimal feature set is the dimensions whose reset removes the
 * anomaly (the point is no longer below, or no longer warned, as the anomaly was). A later point that agrees with a
 * reduced anomaly on its minimal feature set, and is about as far below its neighbours, is the same anomaly (counted,
 * not examined again); one far deeper is examined itself (a mild dip at msg_size 64K does not hide a rate limit
 * there).
 *
 * <p>Stateless and deterministic: {@link #next} replays the whole search from the seed and the runs measured so far
 * (each point's runs in the order they were queued; a decision uses only the runs it had then), and returns the runs
 * to queue next, or none when the search is over; its report says what was found so far either way. At most maxRuns
 * runs are ever planned.
 */
public final class AnomalySearch {

    /** The annealing's temperature at the start, in units of score (metric / best expectation). */
    static final double T0 = 0.1;
    /** A point that agrees with a reduced anomaly on its minimal feature set is the same anomaly when it is as deep: its
     *  score (metric / best expectation) within this factor of the anomaly's. A far deeper one is examined itself. */
    static final double SAME_DEPTH = 1.5;
    /** A point far below a neighbour's own value (not scaled) but not flagged is tested against up to this many
     *  neighbours a step down before the walk goes on: one (two cost coverage: 97 of 100 seeds instead of 100). */
    static final int DOWN_TESTS = 1;

    private AnomalySearch() {
    }

    /**
     * One searched dimension: its values (ascending Longs for a numeric one, else choices in their order) and the index
     * of its reset value among them (its "default": where a reduction sets it back to).
     */
    public record Dimension(String name, List<Object> values, int reset, boolean numeric) {
        public Dimension {
            values = List.copyOf(values);
            if (values.isEmpty() || reset < 0 || reset >= values.size()) {
                throw new IllegalArgumentException(name + ": reset index " + reset + " outside its " + values.size()
                        + " values");
            }
        }
    }

    /** below: a point under below x its neighbours' best expectation is an anomaly; repeats: runs that judge a point
     *  when it is confirmed or reduced (a walk point runs once); maxRuns: every run counted, repeats included. */
    public record Settings(List<Dimension> dimensions, long seed, int maxRuns, int repeats, double below) {
        public static final double DEFAULT_BELOW = 0.7;

        public Settings {
            dimensions = List.copyOf(dimensions);
            if (dimensions.isEmpty()) {
                throw new IllegalArgumentException("an anomaly search needs at least one dimension");
            }
            if (!(below > 0 && below < 1) || repeats < 1 || maxRuns < 1) {
                throw new IllegalArgumentException("below " + below + ", repeats " + repeats + ", max runs " + maxRuns);
            }
        }

        /** The runs one examination may take: the candidate's repeats, each reset's, and a reference each. */
        public int reserve() {
            return repeats * (dimensions.size() + 1) + dimensions.size();
        }
    }

    /** One run of a point: its metric (NaN when it failed) and the counters its summaries warned about. */
    public record RunValue(double value, List<String> warnings) {
        public RunValue {
            warnings = List.copyOf(warnings);
        }

        /** A NIC counter's warning; the host-wide ones (tcp's /proc/net/snmp) move with every connection of the host. */
        boolean nicWarning() {
            return warnings.stream().anyMatch(w -> !w.endsWith("(host-wide)"));
        }
    }

    /** A point (an index into each dimension's values) and its runs, in the order they were queued. */
    public record Observation(List<Integer> at, List<RunValue> runs) {
    }

    /** Queue this many more runs of the point. */
    public record Request(List<Integer> at, int runs) {
    }

    /** One dimension's reset of an anomaly: the point with it set back, its median, and whether it was still anomalous. */
    public record Reset(String dimension, Object from, Object to, Double value, Double expected, boolean stillAnomalous) {
    }

    /**
     * A flagged and confirmed point. kinds: "below" (its metric under below x its neighbours' best expectation),
     * "warned" (NIC counters warned in most of its runs); value: its median; expected: the neighbours' best
     * expectation, from neighbour; minimalFeatures: the dimensions whose reset removes it, each with its value there;
     * counters: every counter warning of its runs; sameAt: other points found later that agree on the minimal set;
     * reduced: false while (or when) its resets were cut short.
     */
    public record Anomaly(Map<String, Object> point, List<String> kinds, Double value, Double expected,
                          Map<String, Object> neighbour, Map<String, Object> minimalFeatures, List<Reset> resets,
                          List<String> counters, List<Map<String, Object>> sameAt, boolean reduced) {
    }

    /** stop: "running", "done" (the budget for walking is spent or every point was seen), "max_runs" (an examination
     *  ran out of runs); runs: runs planned; points: distinct points measured; dismissed: candidates their repeats
     *  did not confirm. */
    public record Report(List<Anomaly> anomalies, int runs, int points, int dismissed, String stop, String why) {
    }

    /** next: the runs to queue now (empty: the search is over); report: what it has found so far. */
    public record Step(List<Request> next, Report report) {
        public Step {
            next = List.copyOf(next);
        }
    }

    /** From every run so far (one observation per point), what to run next, and the report so far. Deterministic. */
    public static Step next(Settings s, List<Observation> seen, Predicate<List<Integer>> runnable) {
        return new Replay(s, seen, runnable).run();
    }

    /** The search replayed: every decision re-made from the seed, each with the runs it had when it was made. */
    private static final class Replay {
        private final Settings s;
        private final Map<List<Integer>, List<RunValue>> runs = new HashMap<>();
        private final Predicate<List<Integer>> runnable;
        private final Map<List<Integer>, Integer> planned = new LinkedHashMap<>();
        private final Set<List<Integer>> examined = new HashSet<>();
        private final Set<List<Object>> pairs = new HashSet<>();
        private final List<Anomaly> anomalies = new ArrayList<>();
        private final List<List<Integer>> classes = new ArrayList<>(); // each anomaly's point, for its minimal set
        private final List<Request> wanted = new ArrayList<>();
        private final SplittableRandom random;
        private final AnomalyGrid grid;
        private int used;
        private int dismissed;
        private boolean outOfRuns;

        Replay(Settings s, List<Observation> seen, Predicate<List<Integer>> runnable) {
            this.s = s;
            this.runnable = runnable;
            this.random = new SplittableRandom(s.seed());
            this.grid = new AnomalyGrid(s.dimensions());
            for (Observation o : seen) {
                if (o.at().size() != s.dimensions().size() || runs.put(List.copyOf(o.at()), o.runs()) != null) {
                    throw new IllegalArgumentException("observation " + o.at() + " is not one point of "
                            + s.dimensions().size() + " dimensions, once");
                }
            }
        }

        Step run() {
            List<Integer> base = s.dimensions().stream().map(Dimension::reset).toList();
            if (!want(base, 1)) {
                return pending("the base point");
            }
            List<Integer> current = base;
            while (true) {
                Step examining = examineCandidates();
                if (examining != null) {
                    return examining;
                }
                if (used + 1 + s.reserve() > s.maxRuns()) {
                    return done("done", String.format(Locale.ROOT, "The walk spent its runs (%d of max_runs %d; %d "
                            + "kept to examine an anomaly found last).", used, s.maxRuns(), s.reserve()));
                }
                List<Integer> next = choose(current);
                if (next == null) {
                    return done("done", "Every point of the dimensions' values that can run was measured.");
                }
                if (!want(next, 1)) {
                    return pending("the walk");
                }
                double rise = score(next) - score(current);
                double temperature = T0 * Math.max(0, 1 - (double) used / s.maxRuns());
                double draw = random.nextDouble();
                if (value(next) != null && (rise <= 0 || temperature > 0 && draw < Math.exp(-rise / temperature))) {
                    current = next;
                }
            }
        }

        /** Confirms and reduces every seen point that is below or warned; a Step when it needs runs first. */
        private Step examineCandidates() {
            while (true) {
                List<Integer> candidate = null;
                double lowest = Double.POSITIVE_INFINITY;
                for (List<Integer> p : planned.keySet()) {
                    if (examined.contains(p) || kinds(p).isEmpty()) {
                        continue;
                    }
                    double score = score(p);
                    if (candidate == null || score < lowest) {
                        candidate = p;
                        lowest = score;
                    }
                }
                if (candidate == null) {
                    return null;
                }
                Step step = examine(candidate);
                if (step != null) {
                    return step;
                }
            }
        }

        private Step examine(List<Integer> p) {
            for (int i = 0; i < classes.size(); i++) {
                if (sameClass(p, classes.get(i), anomalies.get(i).minimalFeatures().keySet())
                        && Math.abs(Math.log(score(p) / score(classes.get(i)))) <= Math.log(SAME_DEPTH)) {
                    examined.add(p);
                    anomalies.get(i).sameAt().add(grid.point(p));
                    return null;
                }
            }
            List<String> flagged = kinds(p);
            if (!want(p, s.repeats())) {
                return outOfRuns ? stopExamining(p, flagged, List.of()) : pending("the confirmation of " + grid.point(p));
            }
            List<String> confirmed = kinds(p);
            confirmed.retainAll(flagged);
            if (confirmed.isEmpty()) {
                examined.add(p);
                dismissed++;
                return null;
            }
            List<Reset> resets = new ArrayList<>();
            boolean ready = true;
            for (int d = 0; d < s.dimensions().size(); d++) {
                List<Integer> r = grid.reset(p, d);
                if (r == null || !runnable.test(r)) {
                    continue;
                }
                ready &= want(r, s.repeats());
                for (List<Integer> reference : grid.downNeighbours(r)) {
                    if (runnable.test(reference)) {
                        ready &= want(reference, 1);
                    }
                }
            }
            if (!ready) {
                return outOfRuns ? stopExamining(p, confirmed, resets)
                        : pending("the reduction of " + grid.point(p));
            }
            Map<String, Object> minimal = new LinkedHashMap<>();
            for (int d = 0; d < s.dimensions().size(); d++) {
                List<Integer> r = grid.reset(p, d);
                if (r == null) {
                    continue;
                }
                Dimension dim = s.dimensions().get(d);
                if (!runnable.test(r)) {
                    resets.add(new Reset(dim.name(), dim.values().get(p.get(d)), dim.values().get(dim.reset()), null,
                            null, true));
                    continue;
                }
                List<String> still = kinds(r);
                still.retainAll(confirmed);
                Double expected = expectation(r) == null ? null : expectation(r).value();
                resets.add(new Reset(dim.name(), dim.values().get(p.get(d)), dim.values().get(dim.reset()), value(r),
                        expected, !still.isEmpty()));
                if (still.isEmpty()) {
                    minimal.put(dim.name(), dim.values().get(p.get(d)));
                }
            }
            examined.add(p);
            anomalies.add(anomaly(p, confirmed, minimal, resets, true));
            classes.add(p);
            return null;
        }

        private Step stopExamining(List<Integer> p, List<String> kinds, List<Reset> resets) {
            anomalies.add(anomaly(p, kinds, Map.of(), resets, false));
            return done("max_runs", "max_runs (" + s.maxRuns() + ") ran out while examining " + grid.point(p)
                    + ": it is reported unreduced.");
        }

        private Anomaly anomaly(List<Integer> p, List<String> kinds, Map<String, Object> minimal, List<Reset> resets,
                                boolean reduced) {
            Expectation e = expectation(p);
            Set<String> counters = new LinkedHashSet<>();
            runsOf(p).forEach(r -> counters.addAll(r.warnings()));
            Double value = value(p);
            return new Anomaly(grid.point(p), List.copyOf(kinds), value, e == null ? null : e.value(),
                    e == null ? null : grid.point(e.from()), minimal, resets,
                    List.copyOf(counters), new ArrayList<>(), reduced);
        }

        private boolean sameClass(List<Integer> p, List<Integer> anomaly, Set<String> minimal) {
            if (minimal.isEmpty()) {
                return p.equals(anomaly);
            }
            for (int d = 0; d < s.dimensions().size(); d++) {
                if (minimal.contains(s.dimensions().get(d).name()) && !p.get(d).equals(anomaly.get(d))) {
                    return false;
                }
            }
            return true;
        }

        /** The next point of the walk from current, or null when no point that can run is left unseen. */
        private List<Integer> choose(List<Integer> current) {
            List<List<Integer>> near = grid.neighbours(current).stream().filter(this::unseen).toList();
            for (List<Integer> p : planned.keySet()) {
                // judged only against neighbours with more of a dimension, whose expectation is weak, and far below
                // one of their values: tested against a neighbour with less (up to DOWN_TESTS of them)
                List<List<Integer>> down = grid.downNeighbours(p);
                if (down.stream().filter(planned::containsKey).count() < DOWN_TESTS && kinds(p).isEmpty()
                        && farBelowARawNeighbour(p)) {
                    List<List<Integer>> untested = down.stream().filter(this::unseen).toList();
                    if (!untested.isEmpty()) {
                        return untested.get(random.nextInt(untested.size()));
                    }
                }
            }
            List<List<Integer>> best = mostNovel(near);
            if (best.isEmpty() || novelty(best.get(0)) == 0) {
                Set<List<Integer>> frontier = new LinkedHashSet<>();
                for (List<Integer> p : planned.keySet()) {
                    grid.neighbours(p).stream().filter(this::unseen).forEach(frontier::add);
                }
                List<List<Integer>> restart = mostNovel(List.copyOf(frontier));
                if (!restart.isEmpty() && (best.isEmpty() || novelty(restart.get(0)) > 0)) {
                    best = restart;
                }
            }
            return best.isEmpty() ? null : best.get(random.nextInt(best.size()));
        }

        private boolean unseen(List<Integer> p) {
            return !planned.containsKey(p) && runnable.test(p);
        }

        private List<List<Integer>> mostNovel(List<List<Integer>> points) {
            int most = points.stream().mapToInt(this::novelty).max().orElse(0);
            return points.stream().filter(p -> novelty(p) == most).toList();
        }

        /** How many pairs of values the point would have first. */
        private int novelty(List<Integer> p) {
            int n = 0;
            for (List<Object> pair : grid.pairsOf(p)) {
                if (!pairs.contains(pair)) {
                    n++;
                }
            }
            return n;
        }

        /** Plans the first k runs of p; false (and the request noted) when they are not all measured yet. */
        private boolean want(List<Integer> p, int k) {
            int before = planned.getOrDefault(p, 0);
            if (before >= k) {
                return true;
            }
            int measured = runs.getOrDefault(p, List.of()).size();
            if (measured >= k) {
                planned.put(p, k);
                used += k - before;
                pairs.addAll(grid.pairsOf(p));
                return true;
            }
            int more = k - Math.max(before, measured);
            int queuedBefore = wanted.stream().mapToInt(Request::runs).sum();
            if (used + (measured - before) + queuedBefore + more > s.maxRuns()) {
                outOfRuns = true;
                return false;
            }
            wanted.add(new Request(p, more));
            return false;
        }

        private Step pending(String what) {
            if (wanted.isEmpty()) {
                return done("max_runs", "max_runs (" + s.maxRuns() + ") ran out during " + what + ".");
            }
            int runsSoFar = used + wanted.stream().mapToInt(w -> runs.getOrDefault(w.at(), List.of()).size()
                    - planned.getOrDefault(w.at(), 0)).sum();
            return new Step(wanted, report("running", "Running " + what + ".", runsSoFar));
        }

        private Step done(String stop, String why) {
            return new Step(List.of(), report(stop, why, used));
        }

        private Report report(String stop, String why, int runsSoFar) {
            int points = (int) planned.keySet().stream().filter(p -> value(p) != null).count();
            return new Report(List.copyOf(anomalies), runsSoFar, points, dismissed, stop, why);
        }

        // --- judging ---

        private List<RunValue> runsOf(List<Integer> p) {
            List<RunValue> all = runs.getOrDefault(p, List.of());
            return all.subList(0, Math.min(all.size(), planned.getOrDefault(p, 0)));
        }

        /** The median of the point's runs so far, null when none ran. */
        Double value(List<Integer> p) {
            double[] values = runsOf(p).stream().mapToDouble(RunValue::value).filter(Double::isFinite).sorted().toArray();
            if (values.length == 0) {
                return null;
            }
            int m = values.length / 2;
            return values.length % 2 == 1 ? values[m] : (values[m - 1] + values[m]) / 2;
        }

        private record Expectation(double value, List<Integer> from) {
        }

        /** The best expectation of p's seen neighbours, null when none was measured. */
        private Expectation expectation(List<Integer> p) {
            Expectation best = null;
            for (List<Integer> n : grid.neighbours(p)) {
                Double v = planned.containsKey(n) ? value(n) : null;
                if (v == null) {
                    continue;
                }
                int d = AnomalyGrid.differing(p, n);
                Dimension dim = s.dimensions().get(d);
                double e = v;
                if (dim.numeric() && n.get(d) > p.get(d)) {
                    e = v * ((Number) dim.values().get(p.get(d))).doubleValue()
                            / ((Number) dim.values().get(n.get(d))).doubleValue();
                }
                if (best == null || e > best.value()) {
                    best = new Expectation(e, n);
                }
            }
            return best;
        }

        /** Whether p's metric is under below x some seen neighbour's metric as it is (not scaled by the step). */
        private boolean farBelowARawNeighbour(List<Integer> p) {
            Double v = value(p);
            if (v == null) {
                return false;
            }
            for (List<Integer> n : grid.neighbours(p)) {
                Double w = planned.containsKey(n) ? value(n) : null;
                if (w != null && v < s.below() * w) {
                    return true;
                }
            }
            return false;
        }

        /** metric / best expectation; 1 when nothing is expected yet. */
        private double score(List<Integer> p) {
            Double v = value(p);
            Expectation e = expectation(p);
            return v == null || e == null || e.value() <= 0 ? 1 : v / e.value();
        }

        /** "below" and/or "warned", as p's runs so far say. */
        private List<String> kinds(List<Integer> p) {
            List<String> kinds = new ArrayList<>();
            Double v = value(p);
            Expectation e = expectation(p);
            if (v != null && e != null && v < s.below() * e.value()) {
                kinds.add("below");
            }
            List<RunValue> ran = runsOf(p);
            long warned = ran.stream().filter(RunValue::nicWarning).count();
            if (!ran.isEmpty() && 2 * warned > ran.size()) {
                kinds.add("warned");
            }
            return kinds;
        }
    }
}

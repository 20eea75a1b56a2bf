package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.qplab.controller.api.Violation;
import org.qplab.engine.provider.Providers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Validates a matrix tree and expands it into runs. Every violation of the matrix's form (keys,
 * types, hosts, counts) is collected before anything is expanded, so one 400 lists them all; then
 * every distinct expanded point goes through the engine's own spec check ({@link SpecCheck}): the
 * parameters' limits and the rules between them are the engine's, listed the same way, in its words.
 *
 * <pre>
 * name: quickstart
 * base:        {provider: tcp, iterations: 200}     # every run
 * dimensions:  {msg_size: [64, 4K, 1M], threads: [1, 2, 4]}   # cross product
 * zips:        {variant: {srq: [none, per_thread], inline_size: [0, 0]}}  # positions set together
 * exclude:     [{transport: ud, op: [write, read]}, {msg_size: {gt: 4K}}]  # points left out
 * overrides:   [{when: {msg_size: {le: 256}}, set: {inline_size: 256}}]  # what matching points set too
 * repeats: 3                                          # each point this many times, in rounds
 * order: {random: true, seed: 7}                      # run order shuffled reproducibly
 * hosts: all_pairs                                    # every pair of the connected agents, in rounds
 * retests: 2                                          # a bad pair runs again up to twice (PairRules)
 * search: {knee: threads, low: 1, high: 64}           # instead of dimensions: the knee of a curve (SearchSpec)
 * search: {anomalies: [qps_per_thread, msg_size]}     # or a walk over the dimensions' values (AnomalySpec)
 * expect: {bw_avg_gbps: "&gt;= 90", bw_avg: "&gt;= 0.95 * baseline"}  # what each run must measure (history's ExpectRules)
 * </pre>
 *
 * A zip is one dimension whose positions set several parameters at once (its lists are equally
 * long); an exclude entry leaves out every point matching all its conditions (a value, a list of
 * values — any of them — or a comparison {eq, ne, gt, ge, lt, le}); excluded points are not
 * checked, so a sweep may cross an op with transports that lack it and exclude those points.
 *
 * <p>This class reads the top level and puts the parts together: {@link MatrixHosts}, {@link MatrixPoints},
 * {@link MatrixExcludes}, {@link RunOrder} and the controller's own {@link PointLimits}.
 */
public final class MatrixExpander {

    static final Set<String> TOP_LEVEL = Set.of("name", "description", "base", "dimensions",
            "zips", "exclude", "overrides", "repeats", "order", "hosts", "retests", "bad_below", "bad_above", "search",
            "expect");
    private static final List<String> TOP_LEVEL_ORDER = List.of("name", "description", "base", "dimensions", "zips",
            "exclude", "overrides", "repeats", "order", "hosts", "retests", "bad_below", "bad_above", "search", "expect");
    private static final String TOP_LEVEL_TEXT = String.join(", ", TOP_LEVEL_ORDER);
    private static final int MAX_REPEATS = 1000;

    private final ObjectMapper json;
    private final long maxRuns;
    private final SpecCheck specs;
    private final HostCapabilities capabilities;
    private final ExpectCheck expect;

    public MatrixExpander(ObjectMapper json, long maxRuns) {
        this(json, maxRuns, HostCapabilities.NONE);
    }

    /** expect: the check of the matrix's expect rules. */
    public MatrixExpander(ObjectMapper json, long maxRuns, ExpectCheck expect) {
        this(json, maxRuns, HostCapabilities.NONE, new SpecCheck(), expect);
    }

    /** connectedFacts: the hello facts of a connected agent by its id (null when it is not connected). */
    public MatrixExpander(ObjectMapper json, long maxRuns, Function<String, Map<String, Object>> connectedFacts) {
        this(json, maxRuns, new HostCapabilities(connectedFacts));
    }

    private MatrixExpander(ObjectMapper json, long maxRuns, HostCapabilities capabilities) {
        this(json, maxRuns, capabilities, new SpecCheck());
    }

    /** Tests: the points' verdicts through specs. */
    MatrixExpander(ObjectMapper json, long maxRuns, SpecCheck specs) {
        this(json, maxRuns, HostCapabilities.NONE, specs);
    }

    private MatrixExpander(ObjectMapper json, long maxRuns, HostCapabilities capabilities, SpecCheck specs) {
        this(json, maxRuns, capabilities, specs, ExpectCheck.NONE);
    }

    private MatrixExpander(ObjectMapper json, long maxRuns, HostCapabilities capabilities, SpecCheck specs,
                           ExpectCheck expect) {
        this.expect = expect;
        this.json = json;
        this.maxRuns = maxRuns;
        this.specs = specs;
        this.capabilities = capabilities;
    }

    public Matrix expand(JsonNode root) {
        return expand(root, capabilities);
    }

    /**
     * The matrix expanded, its points judged against hosts (the connected agents and the hosts known here, as a
     * submit sees them now); what does not refuse it but may keep it from running as meant is in its warnings.
     */
    Matrix expand(JsonNode root, HostCapabilities hosts) {
        List<Violation> violations = new ArrayList<>();
        List<Violation> warnings = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new InvalidMatrixException(List.of(new Violation("", "the matrix must be an object with "
                    + "name, base, dimensions and repeats")));
        }
        for (String key : root.propertyNames()) {
            if (!TOP_LEVEL.contains(key)) {
                String near = Suggestions.didYouMean(key, TOP_LEVEL_ORDER);
                violations.add(new Violation(key, "unknown key; " + (near != null ? near + " (a matrix has "
                        + TOP_LEVEL_TEXT + ")" : "a matrix has " + TOP_LEVEL_TEXT)));
            }
        }
        String name = name(root.get("name"), violations);
        int repeats = repeats(root.get("repeats"), violations);
        List<MatrixHosts.Pair> where = MatrixHosts.read(root.get("hosts"), hosts.connectedAgents(), violations);
        PairRules.check(root, !where.isEmpty() && where.stream().allMatch(p -> p.server() != null), violations);
        MatrixPoints matrix = MatrixPoints.read(root, violations);
        MatrixExcludes excludes = MatrixExcludes.read(root.get("exclude"), violations);
        MatrixOverrides overrides = MatrixOverrides.read(root.get("overrides"), violations);
        RunOrder order = RunOrder.read(root.get("order"), violations);
        SearchSpec search = SearchSpec.read(root, maxRuns, violations);
        boolean anomalies = search != null && search.anomalies() != null;
        if (anomalies && search.maxRuns() < search.anomalies().settings(search.maxRuns(), repeats).reserve()) {
            violations.add(new Violation("search.max_runs", "must leave room to examine one anomaly (its repeats, "
                    + "each dimension's reset with its repeats and a neighbour): at least " + search.anomalies()
                    .settings(search.maxRuns(), repeats).reserve() + ", got " + search.maxRuns()));
        } else if (search != null && !anomalies && search.maxRuns() < 2 * repeats) {
            violations.add(new Violation("search.max_runs", "must leave room for both ends' repeats: at least 2 x "
                    + repeats + " = " + 2 * repeats + ", got " + search.maxRuns()));
        }
        if (search != null && where.size() > 1) {
            violations.add(new Violation("hosts", "a search runs on one place (loopback, one host or one pair); this "
                    + "matrix names " + where.size()));
        }
        if (root.get("expect") != null) {
            expect.check(root.get("expect"), violations);
        }

        BigInteger total = anomalies ? BigInteger.valueOf(search.maxRuns()) // its dimensions are values to walk
                : BigInteger.valueOf(repeats).multiply(BigInteger.valueOf(where.size())).multiply(matrix.count());
        if (total.compareTo(BigInteger.valueOf(maxRuns)) > 0) {
            violations.add(new Violation("dimensions", "the matrix expands to " + String.format("%,d", total)
                    + " runs; the limit is " + String.format("%,d", maxRuns)
                    + " (qplab.experiments.max-runs): split it into several experiments"));
            throw new InvalidMatrixException(violations);
        }

        // Expanded even when the matrix has violations, from its valid values: the engine's verdict on the
        // points then comes in the same 400 as the matrix's own problems.
        List<Map<String, Object>> points = matrix.crossProduct();
        if (search != null) { // the search's first points; the next ones are planned from their results
            points = anomalies ? new ArrayList<>(search.anomalyStart()) : search.initialPoints(matrix.base(), repeats);
        }
        int all = points.size();
        points.removeIf(excludes::excludes);
        points.replaceAll(overrides::apply);
        if (points.isEmpty() && violations.isEmpty()) {
            throw new InvalidMatrixException(List.of(new Violation("exclude", "leaves out all " + all
                    + " points of the matrix: nothing would run")));
        }
        PointLimits.check(points, violations);
        if (where.stream().anyMatch(h -> h.server() == null)) {
            pairOnly(points, violations);
        }
        if (violations.stream().noneMatch(v -> v.field().startsWith("exclude"))) {
            // a key whose value the matrix already got wrong is not checked again with the engine's default
            List<Violation> matrixOwn = List.copyOf(violations);
            specs.check(points, matrix.base(), matrix.dimensions(), matrix.zips(),
                    key -> hasViolationAt(matrixOwn, key), violations);
        }
        hosts.check(points, point -> placements(point, where), (key, point) -> SpecCheck.where(
                key, point, matrix.base(), matrix.dimensions(), matrix.zips()), violations, warnings);
        if (!violations.isEmpty()) {
            throw new InvalidMatrixException(violations);
        }
        // Repeats run in rounds (every point once, then every point again), not back to back: a point's runs then
        // span the experiment, so their spread includes the drift of the machine over it, as the spread between two
        // experiments does; comparisons judge changes against that spread.
        List<Matrix.RunPoint> runs = new ArrayList<>(points.size() * repeats);
        for (int r = 0; r < (anomalies ? 1 : repeats); r++) { // a walk's point runs once; repeats confirm
            for (Map<String, Object> point : points) {
                for (MatrixHosts.Pair pair : placements(point, where)) {
                    runs.add(new Matrix.RunPoint(point, r, pair.client(), pair.server()));
                }
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> source = json.treeToValue(root, Map.class);
        order.arrange(runs, source);
        return new Matrix(name, source, runs, List.copyOf(warnings));
    }

    /**
     * Points that run only on a client/server pair (a bidirectional run, nvmeof over a fabric), refused where the
     * matrix has a loopback host: once per reason, at the key that makes it a pair (bidirectional, else transport).
     */
    private static void pairOnly(List<Map<String, Object>> points, List<Violation> violations) {
        Set<String> reasons = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            String why = Providers.of(point).pairOnly(point);
            if (why != null && reasons.add(why)) {
                violations.add(new Violation(Boolean.TRUE.equals(point.get("bidirectional")) ? "bidirectional"
                        : "transport", why));
            }
        }
    }

    /**
     * Where a point's runs go. A point that runs on the server alone (nvmeof's transport local: fio on the target's
     * own backing device) is a loopback run on each pair's server host, each such host once; a loopback host stays
     * itself.
     */
    static List<MatrixHosts.Pair> placements(Map<String, Object> point, List<MatrixHosts.Pair> hosts) {
        if (!Providers.of(point).onServerAlone(point)) {
            return hosts;
        }
        Set<MatrixHosts.Pair> targets = new LinkedHashSet<>();
        for (MatrixHosts.Pair pair : hosts) {
            targets.add(pair.server() == null ? pair : new MatrixHosts.Pair(pair.server(), null));
        }
        return List.copyOf(targets);
    }

    private static String name(JsonNode node, List<Violation> violations) {
        if (node == null || node.isNull()) {
            return "experiment";
        }
        if (!node.isString() || node.stringValue().isBlank() || node.stringValue().length() > 200) {
            violations.add(new Violation("name", "must be a non-empty string of at most 200 characters"));
            return null;
        }
        return node.stringValue().trim();
    }

    private static int repeats(JsonNode node, List<Violation> violations) {
        if (node == null || node.isNull()) {
            return 1;
        }
        if (!node.isIntegralNumber() || node.longValue() < 1 || node.longValue() > MAX_REPEATS) {
            violations.add(new Violation("repeats", "must be an integer between 1 and " + MAX_REPEATS + ", got " + node));
            return 1;
        }
        return node.intValue();
    }

    private static boolean hasViolationAt(List<Violation> violations, String key) {
        return violations.stream().anyMatch(v -> v.field().equals(key) || v.field().endsWith("." + key)
                || v.field().contains("." + key + "["));
    }
}

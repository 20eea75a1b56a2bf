package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.controller.api.Violation;
import org.qplab.controller.search.KneeSearch;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * A matrix's search: a knee ({@code anomalies} null) or anomalies ({@link AnomalySpec}; the knee's fields unused).
 *
 * <p>{@code search: {knee: DIMENSION, low, high, resolution, knee_gain, max_runs}}: instead of a grid, one
 * numeric dimension is searched for the knee of the curve (where the gain per doubling falls below knee_gain of the
 * best step's) or a cliff (where the metric falls), with every other parameter fixed in base. The first points are
 * KneeSearch's initial ones; each next one is planned from the results so far when the runs queued before it end
 * (schedule/SearchSteps), each point run repeats times and judged on their median.
 */
public record SearchSpec(String dimension, long low, long high, double resolution, double kneeGain, int maxRuns,
                         boolean higherIsBetter, AnomalySpec anomalies, MatrixOverrides overrides) {

    /** The dimensions a knee search may sweep: numeric, and each a known axis of RDMA scaling. */
    public static final List<String> DIMENSIONS = List.of("threads", "qps_per_thread", "msg_size", "tx_depth");
    private static final List<String> KEYS = List.of("knee", "low", "high", "resolution", "knee_gain", "max_runs");
    private static final ObjectMapper TREE = new ObjectMapper();
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*([KMG]?)i?B?", Pattern.CASE_INSENSITIVE);

    /** The planning settings: at most maxRuns / repeats points. */
    public KneeSearch.Settings settings(int repeats) {
        return new KneeSearch.Settings(dimension, low, high, resolution, kneeGain, Math.max(2, maxRuns / repeats),
                higherIsBetter);
    }

    /** The points of an anomaly search that run first: the base point, once (the walk plans the rest). */
    public List<Map<String, Object>> anomalyStart() {
        return List.of(anomalies.point(anomalies.resetIndices()));
    }

    /** The first points: base with the dimension at each of the search's first values. */
    public List<Map<String, Object>> initialPoints(Map<String, Object> base, int repeats) {
        List<Map<String, Object>> points = new ArrayList<>();
        for (long x : KneeSearch.initial(settings(repeats))) {
            points.add(at(base, x));
        }
        return points;
    }

    /** base with the dimension at x, then the matrix's overrides. */
    public Map<String, Object> at(Map<String, Object> base, long x) {
        Map<String, Object> point = new LinkedHashMap<>(base);
        point.put(dimension, x);
        return overrides.apply(point);
    }

    /** A stored matrix's base as its expansion read it (sizes in bytes): the parameters of every point of a search. */
    public static Map<String, Object> base(Map<String, Object> source) {
        return MatrixPoints.read(TREE.valueToTree(source), new ArrayList<>()).base();
    }

    /** The search of a stored matrix (its source), or null when it has none. */
    public static SearchSpec of(Map<String, Object> source) {
        if (source == null || !(source.get("search") instanceof Map<?, ?> search) || search.isEmpty()) {
            return null;
        }
        if (search.containsKey("anomalies")) {
            List<Violation> violations = new ArrayList<>();
            SearchSpec read = read(TREE.valueToTree(source), Long.MAX_VALUE, violations);
            if (read == null) {
                throw new IllegalStateException("the stored matrix's search no longer reads: " + violations);
            }
            return read;
        }
        Map<?, ?> base = source.get("base") instanceof Map<?, ?> b ? b : Map.of();
        return new SearchSpec(String.valueOf(search.get("knee")), size(search.get("low")), size(search.get("high")),
                search.get("resolution") instanceof Number n ? n.doubleValue() : 0.10,
                search.get("knee_gain") instanceof Number n ? n.doubleValue() : 0.5,
                search.get("max_runs") instanceof Number n ? n.intValue() : 40, !"latency".equals(base.get("mode")), null,
                MatrixOverrides.read(TREE.valueToTree(source).get("overrides"), new ArrayList<>()));
    }

    /** Checks the matrix's search; null when it has none or it is invalid (each problem in violations). */
    static SearchSpec read(JsonNode root, long runLimit, List<Violation> violations) {
        JsonNode node = root.get("search");
        if (node == null || node.isNull() || node.isObject() && node.isEmpty()) {
            return null; // {} is no search (a generated client sends its empty map)
        }
        int before = violations.size();
        if (!node.isObject()) {
            violations.add(new Violation("search", "must be {knee: dimension, low, high} (and optionally resolution, "
                    + "knee_gain, max_runs) or {anomalies: [dimension, ...]} (and optionally seed, max_runs, "
                    + "max_minutes, below)"));
            return null;
        }
        if (node.has("anomalies")) {
            if (node.has("knee")) {
                violations.add(new Violation("search", "is a knee or anomalies, not both"));
            }
            AnomalySpec anomalies = AnomalySpec.read(root, node, runLimit, violations);
            int maxRuns = maxRuns(node, AnomalySpec.DEFAULT_MAX_RUNS, runLimit, violations);
            return violations.size() > before || anomalies == null ? null
                    : new SearchSpec(null, 0, 0, 0, 0, maxRuns, true, anomalies, anomalies.overrides());
        }
        for (String key : node.propertyNames()) {
            if (!KEYS.contains(key)) {
                violations.add(new Violation("search." + key, "unknown key; a search has " + String.join(", ", KEYS)));
            }
        }
        JsonNode knee = node.get("knee");
        String dimension = knee != null && knee.isString() ? knee.stringValue() : null;
        if (dimension == null) {
            violations.add(new Violation("search.knee", "names the dimension to search: one of " + DIMENSIONS));
        } else if (!DIMENSIONS.contains(dimension)) {
            violations.add(new Violation("search.knee", dimension + " cannot be searched for a knee: the dimension "
                    + "must be numeric and one of " + DIMENSIONS));
        }
        long low = bound(node, "low", violations);
        long high = bound(node, "high", violations);
        if (low > 0 && high > 0 && low >= high) {
            violations.add(new Violation("search.high", "must be above low (" + low + "), got " + high));
        }
        double resolution = fraction(node, "resolution", 0.10, 0.001, 1, violations);
        double kneeGain = fraction(node, "knee_gain", 0.5, 0.01, 0.99, violations);
        int maxRuns = maxRuns(node, 40, runLimit, violations);
        for (String key : List.of("dimensions", "zips")) {
            JsonNode other = root.get(key);
            if (other != null && !other.isNull() && !other.isEmpty()) {
                violations.add(new Violation(key, "a search varies " + (dimension == null ? "one dimension" : dimension)
                        + " alone, the others fixed: put their values in base (one search per value)"));
            }
        }
        JsonNode base = root.get("base");
        if (dimension != null && base != null && base.has(dimension)) {
            violations.add(new Violation("base." + dimension, "is set by the search (search.knee); leave it out of base"));
        }
        if (violations.size() > before) {
            return null;
        }
        boolean higherIsBetter = base == null || base.get("mode") == null || !"latency".equals(base.get("mode").asString());
        return new SearchSpec(dimension, low, high, resolution, kneeGain, maxRuns, higherIsBetter, null,
                MatrixOverrides.read(root.get("overrides"), new ArrayList<>())); // its refusals are the expander's
    }

    private static int maxRuns(JsonNode node, int fallback, long runLimit, List<Violation> violations) {
        JsonNode max = node.get("max_runs");
        if (max == null) {
            return (int) Math.min(fallback, runLimit);
        }
        if (!max.isIntegralNumber() || max.longValue() < 2 || max.longValue() > runLimit) {
            violations.add(new Violation("search.max_runs", "must be an integer between 2 and " + runLimit
                    + " (qplab.experiments.max-runs), got " + max));
            return fallback;
        }
        return max.intValue();
    }

    private static long bound(JsonNode node, String key, List<Violation> violations) {
        JsonNode value = node.get(key);
        long v = value == null ? -1 : value.isIntegralNumber() ? value.longValue() : value.isString() ? size(value.stringValue()) : -1;
        if (v < 1) {
            violations.add(new Violation("search." + key, "must be a positive integer (a size may be written 4K), got "
                    + (value == null ? "nothing" : value)));
            return -1;
        }
        return v;
    }

    private static double fraction(JsonNode node, String key, double fallback, double min, double max,
                                   List<Violation> violations) {
        JsonNode value = node.get(key);
        if (value == null) {
            return fallback;
        }
        if (!value.isNumber() || value.doubleValue() < min || value.doubleValue() > max) {
            violations.add(new Violation("search." + key, "must be a number between " + min + " and " + max + ", got "
                    + value));
            return fallback;
        }
        return value.doubleValue();
    }

    private static long size(Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        Matcher m = SIZE.matcher(String.valueOf(value).trim());
        if (!m.matches()) {
            return -1;
        }
        long v = Long.parseLong(m.group(1));
        return switch (m.group(2).toUpperCase()) {
            case "K" -> v << 10;
            case "M" -> v << 20;
            case "G" -> v << 30;
            default -> v;
        };
    }
}

package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * Validates a matrix tree and expands it into runs. Every violation is collected before anything
 * is expanded, so one 400 lists them all.
 *
 * <pre>
 * name: quickstart
 * base:        {provider: tcp, iterations: 200}     # every run
 * dimensions:  {msg_size: [64, 4K, 1M], threads: [1, 2, 4]}   # cross product
 * repeats: 3                                          # each point this many times
 * </pre>
 */
public final class MatrixExpander {

    private static final Set<String> TOP_LEVEL = Set.of("name", "description", "base", "dimensions", "repeats");
    private static final int MAX_REPEATS = 1000;
    /**
     * The engine's defaults of the parameters curves and comparisons group by, written into every
     * run so that a run's parameters say what it did even where the matrix was silent.
     */
    static final Map<String, Object> EXPLICIT_DEFAULTS = Map.of(
            Parameter.PROVIDER.key(), "tcp", Parameter.OP.key(), "send",
            Parameter.THREADS.key(), 1L, Parameter.QPS_PER_THREAD.key(), 1L);

    private final ObjectMapper json;
    private final long maxRuns;

    public MatrixExpander(ObjectMapper json, long maxRuns) {
        this.json = json;
        this.maxRuns = maxRuns;
    }

    public Matrix expand(JsonNode root) {
        List<Violation> violations = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new InvalidMatrixException(List.of(new Violation("", "the matrix must be an object with "
                    + "name, base, dimensions and repeats")));
        }
        for (String key : root.propertyNames()) {
            if (!TOP_LEVEL.contains(key)) {
                violations.add(new Violation(key, "unknown key; a matrix has name, description, base, dimensions, repeats"));
            }
        }
        String name = name(root.get("name"), violations);
        int repeats = repeats(root.get("repeats"), violations);
        Map<String, Object> base = base(root.get("base"), violations);
        Map<String, List<Object>> dimensions = dimensions(root.get("dimensions"), base, violations);

        Set<String> present = new LinkedHashSet<>(base.keySet());
        present.addAll(dimensions.keySet());
        if (!present.contains(Parameter.MSG_SIZE.key()) && !hasViolationAt(violations, "msg_size")) {
            violations.add(new Violation("msg_size", "is required, in base or dimensions"));
        }

        BigInteger total = BigInteger.valueOf(repeats);
        for (List<Object> values : dimensions.values()) {
            total = total.multiply(BigInteger.valueOf(Math.max(1, values.size())));
        }
        if (total.compareTo(BigInteger.valueOf(maxRuns)) > 0) {
            violations.add(new Violation("dimensions", "the matrix expands to " + String.format("%,d", total)
                    + " runs; the limit is " + String.format("%,d", maxRuns)
                    + " (qplab.experiments.max-runs): split it into several experiments"));
        }
        if (!violations.isEmpty()) {
            throw new InvalidMatrixException(violations);
        }

        List<Map<String, Object>> points = crossProduct(base, dimensions);
        checkPoints(points, violations);
        if (!violations.isEmpty()) {
            throw new InvalidMatrixException(violations);
        }
        List<Matrix.RunPoint> runs = new ArrayList<>(points.size() * repeats);
        for (Map<String, Object> point : points) {
            for (int r = 0; r < repeats; r++) {
                runs.add(new Matrix.RunPoint(point, r));
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> source = json.treeToValue(root, Map.class);
        return new Matrix(name, source, runs);
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

    private static Map<String, Object> base(JsonNode node, List<Violation> violations) {
        Map<String, Object> base = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return base;
        }
        if (!node.isObject()) {
            violations.add(new Violation("base", "must be a map of parameter: value"));
            return base;
        }
        for (var entry : node.properties()) {
            String field = "base." + entry.getKey();
            var parameter = Parameter.byKey(entry.getKey());
            if (parameter.isEmpty()) {
                violations.add(unknownParameter(field, entry.getKey()));
                continue;
            }
            if (entry.getValue().isArray() || entry.getValue().isObject()) {
                violations.add(new Violation(field, "must be a single value; put lists under dimensions"));
                continue;
            }
            Object value = parameter.get().parse(entry.getValue(), field, violations);
            if (value != null) {
                base.put(entry.getKey(), value);
            }
        }
        return base;
    }

    private static Map<String, List<Object>> dimensions(JsonNode node, Map<String, Object> base,
                                                        List<Violation> violations) {
        Map<String, List<Object>> dimensions = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return dimensions;
        }
        if (!node.isObject()) {
            violations.add(new Violation("dimensions", "must be a map of parameter: [values]"));
            return dimensions;
        }
        for (var entry : node.properties()) {
            String key = entry.getKey();
            String field = "dimensions." + key;
            var parameter = Parameter.byKey(key);
            if (parameter.isEmpty()) {
                violations.add(unknownParameter(field, key));
                continue;
            }
            if (base.containsKey(key)) {
                violations.add(new Violation(field, "is also set in base; set it in one place"));
            }
            JsonNode values = entry.getValue();
            if (!values.isArray()) {
                violations.add(new Violation(field, "must be a list of values"));
                continue;
            }
            if (values.isEmpty()) {
                violations.add(new Violation(field, "is empty: list at least one value"));
                continue;
            }
            List<Object> parsed = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                Object value = parameter.get().parse(values.get(i), field + "[" + i + "]", violations);
                if (value != null) {
                    parsed.add(value);
                }
            }
            dimensions.put(key, parsed);
        }
        return dimensions;
    }

    private static Violation unknownParameter(String field, String key) {
        return new Violation(field, "unknown parameter '" + key + "'; known: " + Parameter.knownKeys());
    }

    private static boolean hasViolationAt(List<Violation> violations, String key) {
        return violations.stream().anyMatch(v -> v.field().endsWith("." + key) || v.field().contains("." + key + "["));
    }

    private static List<Map<String, Object>> crossProduct(Map<String, Object> base, Map<String, List<Object>> dimensions) {
        List<Map<String, Object>> points = new ArrayList<>();
        Map<String, Object> first = new LinkedHashMap<>(EXPLICIT_DEFAULTS);
        first.putAll(base);
        points.add(first);
        for (var dimension : dimensions.entrySet()) {
            List<Map<String, Object>> next = new ArrayList<>(points.size() * dimension.getValue().size());
            for (Map<String, Object> point : points) {
                for (Object value : dimension.getValue()) {
                    Map<String, Object> p = new LinkedHashMap<>(point);
                    p.put(dimension.getKey(), value);
                    next.add(p);
                }
            }
            points = next;
        }
        return points;
    }

    /** Limits that involve more than one parameter, checked on every expanded point. */
    private static void checkPoints(List<Map<String, Object>> points, List<Violation> violations) {
        Set<String> seen = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            long threads = ((Number) point.getOrDefault("threads", 1L)).longValue();
            long qps = ((Number) point.getOrDefault("qps_per_thread", 1L)).longValue();
            if (threads * qps > Parameter.MAX_CONNECTIONS_PER_RUN) {
                String message = "threads " + threads + " x qps_per_thread " + qps + " = " + threads * qps
                        + " connections exceeds " + Parameter.MAX_CONNECTIONS_PER_RUN + " per run";
                if (seen.add(message)) {
                    violations.add(new Violation("dimensions", message));
                }
            }
        }
    }
}

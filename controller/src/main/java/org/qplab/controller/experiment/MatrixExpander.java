package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.qplab.controller.api.Violation;
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
 * repeats: 3                                          # each point this many times
 * order: {random: true, seed: 7}                      # run order shuffled reproducibly
 * </pre>
 *
 * A zip is one dimension whose positions set several parameters at once (its lists are equally
 * long); an exclude entry leaves out every point matching all its conditions (a value, a list of
 * values — any of them — or a comparison {eq, ne, gt, ge, lt, le}); excluded points are not
 * checked, so a sweep may cross an op with transports that lack it and exclude those points.
 */
public final class MatrixExpander {

    static final Set<String> TOP_LEVEL = Set.of("name", "description", "base", "dimensions",
            "zips", "exclude", "repeats", "order", "hosts");
    private static final String TOP_LEVEL_TEXT = "name, description, base, dimensions, zips, exclude, repeats, order, hosts";
    private static final Set<String> COMPARISONS = Set.of("eq", "ne", "gt", "ge", "lt", "le");
    private static final String HOSTS_FORMS = "must be loopback (any agent), {loopback: [host, ...]}, "
            + "{pairs: [[client, server], ...]} or {group: [host, ...]} (every pair of the group)";
    private static final java.util.regex.Pattern HOST_NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._:-]{1,128}");
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
    private final SpecCheck specs;

    public MatrixExpander(ObjectMapper json, long maxRuns) {
        this.json = json;
        this.maxRuns = maxRuns;
        this.specs = new SpecCheck(json);
    }

    public Matrix expand(JsonNode root) {
        List<Violation> violations = new ArrayList<>();
        if (root == null || !root.isObject()) {
            throw new InvalidMatrixException(List.of(new Violation("", "the matrix must be an object with "
                    + "name, base, dimensions and repeats")));
        }
        for (String key : root.propertyNames()) {
            if (!TOP_LEVEL.contains(key)) {
                violations.add(new Violation(key, "unknown key; a matrix has " + TOP_LEVEL_TEXT));
            }
        }
        String name = name(root.get("name"), violations);
        int repeats = repeats(root.get("repeats"), violations);
        List<String[]> hosts = hosts(root.get("hosts"), violations);
        Map<String, Object> base = base(root.get("base"), violations);
        Map<String, List<Object>> dimensions = dimensions(root.get("dimensions"), base, violations);
        Map<String, List<Map<String, Object>>> zips = zips(root.get("zips"), base, dimensions, violations);
        List<Map<String, Condition>> excludes = excludes(root.get("exclude"), violations);
        Long seed = order(root.get("order"), violations);

        BigInteger total = BigInteger.valueOf(repeats).multiply(BigInteger.valueOf(hosts.size()));
        for (List<Object> values : dimensions.values()) {
            total = total.multiply(BigInteger.valueOf(Math.max(1, values.size())));
        }
        for (List<Map<String, Object>> positions : zips.values()) {
            total = total.multiply(BigInteger.valueOf(Math.max(1, positions.size())));
        }
        if (total.compareTo(BigInteger.valueOf(maxRuns)) > 0) {
            violations.add(new Violation("dimensions", "the matrix expands to " + String.format("%,d", total)
                    + " runs; the limit is " + String.format("%,d", maxRuns)
                    + " (qplab.experiments.max-runs): split it into several experiments"));
            throw new InvalidMatrixException(violations);
        }

        // Expanded even when the matrix has violations, from its valid values: the engine's verdict on the
        // points then comes in the same 400 as the matrix's own problems.
        List<Map<String, Object>> points = crossProduct(base, dimensions, zips);
        for (Map<String, Object> point : points) {
            if ("verbs".equals(point.get(Parameter.PROVIDER.key()))) {
                point.putIfAbsent(Parameter.TRANSPORT.key(), Parameter.TRANSPORT.verbsDefault());
            }
        }
        int all = points.size();
        points.removeIf(point -> excludes.stream().anyMatch(rule -> matches(rule, point)));
        if (points.isEmpty() && violations.isEmpty()) {
            throw new InvalidMatrixException(List.of(new Violation("exclude", "leaves out all " + all
                    + " points of the matrix: nothing would run")));
        }
        checkConnections(points, violations);
        if (violations.stream().noneMatch(v -> v.field().startsWith("exclude"))) {
            // a key whose value the matrix already got wrong is not checked again with the engine's default
            List<Violation> matrixOwn = List.copyOf(violations);
            specs.check(points, base, dimensions, zips, key -> hasViolationAt(matrixOwn, key), violations);
        }
        if (!violations.isEmpty()) {
            throw new InvalidMatrixException(violations);
        }
        List<Matrix.RunPoint> runs = new ArrayList<>(points.size() * repeats);
        for (Map<String, Object> point : points) {
            for (String[] where : hosts) {
                for (int r = 0; r < repeats; r++) {
                    runs.add(new Matrix.RunPoint(point, r, where[0], where[1]));
                }
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> source = json.treeToValue(root, Map.class);
        if (seed != null) {
            java.util.Collections.shuffle(runs, new Random(seed));
            // the seed actually used is stored with the experiment: its order can be replayed
            source.put("order", new LinkedHashMap<>(Map.of("random", true, "seed", seed)));
        }
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

    /** Where the runs go: each entry is {client, server}; {null, null} is loopback on any agent. */
    private static List<String[]> hosts(JsonNode node, List<Violation> violations) {
        List<String[]> where = new ArrayList<>();
        if (node == null || node.isNull() || (node.isString() && node.stringValue().equals("loopback"))) {
            where.add(new String[] {null, null});
            return where;
        }
        if (!node.isObject() || node.size() != 1) {
            violations.add(new Violation("hosts", HOSTS_FORMS));
            where.add(new String[] {null, null});
            return where;
        }
        String form = node.propertyNames().iterator().next();
        JsonNode list = node.get(form);
        String field = "hosts." + form;
        if (!list.isArray() || list.isEmpty()) {
            violations.add(new Violation(field, "must be a non-empty list"));
        } else if (form.equals("loopback") || form.equals("group")) {
            List<String> names = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                String name = hostName(list.get(i), field + "[" + i + "]", violations);
                if (name != null && names.contains(name)) {
                    violations.add(new Violation(field + "[" + i + "]", "lists " + name + " twice"));
                } else if (name != null) {
                    names.add(name);
                }
            }
            if (form.equals("loopback")) {
                names.forEach(n -> where.add(new String[] {n, null}));
            } else if (names.size() < 2) {
                violations.add(new Violation(field, "needs at least two hosts to make a pair"));
            } else {
                for (int a = 0; a < names.size(); a++) {
                    for (int b = a + 1; b < names.size(); b++) {
                        where.add(new String[] {names.get(a), names.get(b)});
                    }
                }
            }
        } else if (form.equals("pairs")) {
            for (int i = 0; i < list.size(); i++) {
                JsonNode pair = list.get(i);
                String at = field + "[" + i + "]";
                if (!pair.isArray() || pair.size() != 2) {
                    violations.add(new Violation(at, "must be [client, server]"));
                    continue;
                }
                String client = hostName(pair.get(0), at + "[0]", violations);
                String server = hostName(pair.get(1), at + "[1]", violations);
                if (client != null && client.equals(server)) {
                    violations.add(new Violation(at, "client and server are both " + client
                            + "; for one host use {loopback: [" + client + "]}"));
                } else if (client != null && server != null) {
                    where.add(new String[] {client, server});
                }
            }
        } else {
            violations.add(new Violation("hosts", HOSTS_FORMS + "; got " + form));
        }
        if (where.isEmpty()) {
            where.add(new String[] {null, null});
        }
        return where;
    }

    private static String hostName(JsonNode node, String field, List<Violation> violations) {
        if (node.isString() && HOST_NAME.matcher(node.stringValue()).matches()) {
            return node.stringValue();
        }
        violations.add(new Violation(field, "must be a host (agent) name: 1-128 characters of A-Z a-z 0-9 . _ : -, got " + node));
        return null;
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
            // an invalid value stays as null, so that every value keeps its index (crossProduct skips it)
            List<Object> parsed = new ArrayList<>();
            for (int i = 0; i < values.size(); i++) {
                parsed.add(parameter.get().parse(values.get(i), field + "[" + i + "]", violations));
            }
            dimensions.put(key, parsed);
        }
        return dimensions;
    }

    /** Each zip: its positions, each a map of the parameters that position sets. */
    private static Map<String, List<Map<String, Object>>> zips(JsonNode node, Map<String, Object> base,
                                                               Map<String, List<Object>> dimensions,
                                                               List<Violation> violations) {
        Map<String, List<Map<String, Object>>> zips = new LinkedHashMap<>();
        if (node == null || node.isNull()) {
            return zips;
        }
        if (!node.isObject()) {
            violations.add(new Violation("zips", "must be a map of zip name: {parameter: [values], ...}"));
            return zips;
        }
        Set<String> zipped = new LinkedHashSet<>();
        for (var zip : node.properties()) {
            String zipField = "zips." + zip.getKey();
            if (!zip.getValue().isObject() || zip.getValue().isEmpty()) {
                violations.add(new Violation(zipField, "must be a map of parameter: [values], the lists equally long"));
                continue;
            }
            Integer length = null;
            String first = null;
            List<Map<String, Object>> positions = new ArrayList<>();
            boolean ok = true;
            for (var entry : zip.getValue().properties()) {
                String key = entry.getKey();
                String field = zipField + "." + key;
                var parameter = Parameter.byKey(key);
                if (parameter.isEmpty()) {
                    violations.add(unknownParameter(field, key));
                    ok = false;
                    continue;
                }
                if (base.containsKey(key) || dimensions.containsKey(key) || !zipped.add(key)) {
                    violations.add(new Violation(field, "is also set in " + (base.containsKey(key) ? "base"
                            : dimensions.containsKey(key) ? "dimensions" : "another zip") + "; set it in one place"));
                    ok = false;
                    continue;
                }
                JsonNode values = entry.getValue();
                if (!values.isArray() || values.isEmpty()) {
                    violations.add(new Violation(field, "must be a non-empty list of values"));
                    ok = false;
                    continue;
                }
                if (length == null) {
                    length = values.size();
                    first = key;
                    for (int i = 0; i < length; i++) {
                        positions.add(new LinkedHashMap<>());
                    }
                } else if (values.size() != length) {
                    violations.add(new Violation(field, "has " + values.size() + " values but " + first + " has "
                            + length + "; the lists of a zip are read position by position"));
                    ok = false;
                    continue;
                }
                for (int i = 0; i < values.size(); i++) {
                    Object value = parameter.get().parse(values.get(i), field + "[" + i + "]", violations);
                    if (value == null) {
                        ok = false;
                    } else {
                        positions.get(i).put(key, value);
                    }
                }
            }
            if (ok && !positions.isEmpty()) {
                zips.put(zip.getKey(), positions);
            }
        }
        return zips;
    }

    /** One condition of an exclude entry on one parameter. */
    private record Condition(String op, List<Object> values) {
        boolean test(Object actual) {
            if (actual == null) {
                return op.equals("ne");
            }
            return switch (op) {
                case "eq" -> values.contains(actual);
                case "ne" -> !values.contains(actual);
                default -> {
                    if (!(actual instanceof Number a)) {
                        yield false;
                    }
                    long x = a.longValue();
                    long y = ((Number) values.get(0)).longValue();
                    yield switch (op) {
                        case "gt" -> x > y;
                        case "ge" -> x >= y;
                        case "lt" -> x < y;
                        default -> x <= y;
                    };
                }
            };
        }
    }

    private static List<Map<String, Condition>> excludes(JsonNode node, List<Violation> violations) {
        List<Map<String, Condition>> rules = new ArrayList<>();
        if (node == null || node.isNull()) {
            return rules;
        }
        if (!node.isArray()) {
            violations.add(new Violation("exclude", "must be a list of {parameter: condition, ...}; a point matching "
                    + "every condition of an entry is left out"));
            return rules;
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String at = "exclude[" + i + "]";
            if (!entry.isObject() || entry.isEmpty()) {
                violations.add(new Violation(at, "must be a non-empty map of parameter: condition"));
                continue;
            }
            Map<String, Condition> rule = new LinkedHashMap<>();
            for (var condition : entry.properties()) {
                String key = condition.getKey();
                String field = at + "." + key;
                var parameter = Parameter.byKey(key);
                if (parameter.isEmpty()) {
                    violations.add(unknownParameter(field, key));
                    continue;
                }
                Condition parsed = condition(parameter.get(), condition.getValue(), field, violations);
                if (parsed != null) {
                    rule.put(key, parsed);
                }
            }
            rules.add(rule);
        }
        return rules;
    }

    private static Condition condition(Parameter parameter, JsonNode value, String field, List<Violation> violations) {
        if (value.isArray()) {
            if (value.isEmpty()) {
                violations.add(new Violation(field, "is an empty list: it would match nothing"));
                return null;
            }
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < value.size(); i++) {
                Object v = parameter.parse(value.get(i), field + "[" + i + "]", violations);
                if (v != null) {
                    values.add(v);
                }
            }
            return new Condition("eq", values);
        }
        if (value.isObject()) {
            if (value.size() != 1 || !COMPARISONS.contains(value.propertyNames().iterator().next())) {
                violations.add(new Violation(field, "a comparison is one of {eq: v}, {ne: v}, {gt: v}, {ge: v}, {lt: v}, "
                        + "{le: v}; got " + value));
                return null;
            }
            String op = value.propertyNames().iterator().next();
            if (!op.equals("eq") && !op.equals("ne") && !parameter.numeric()) {
                violations.add(new Violation(field, op + " compares numbers; " + parameter.key() + " is not numeric"));
                return null;
            }
            Object v = parameter.parse(value.get(op), field + "." + op, violations);
            return v == null ? null : new Condition(op, List.of(v));
        }
        Object v = parameter.parse(value, field, violations);
        return v == null ? null : new Condition("eq", List.of(v));
    }

    private static boolean matches(Map<String, Condition> rule, Map<String, Object> point) {
        for (var condition : rule.entrySet()) {
            if (!condition.getValue().test(point.get(condition.getKey()))) {
                return false;
            }
        }
        return !rule.isEmpty();
    }

    /** The seed of a random run order, or null to run in matrix order. */
    private static Long order(JsonNode node, List<Violation> violations) {
        if (node == null || node.isNull() || (node.isString() && node.stringValue().equals("sequential"))) {
            return null;
        }
        String forms = "must be sequential (the default) or {random: true, seed: N} (seed optional: one is chosen "
                + "and stored with the experiment)";
        if (!node.isObject()) {
            violations.add(new Violation("order", forms + "; got " + node));
            return null;
        }
        Long seed = null;
        boolean random = false;
        for (var entry : node.properties()) {
            switch (entry.getKey()) {
                case "random" -> {
                    if (entry.getValue().isBoolean()) {
                        random = entry.getValue().booleanValue();
                    } else {
                        violations.add(new Violation("order.random", "must be true or false, got " + entry.getValue()));
                    }
                }
                case "seed" -> {
                    if (entry.getValue().isIntegralNumber() && entry.getValue().canConvertToLong()) {
                        seed = entry.getValue().longValue();
                    } else {
                        violations.add(new Violation("order.seed", "must be an integer, got " + entry.getValue()));
                    }
                }
                default -> violations.add(new Violation("order." + entry.getKey(), "unknown key; order has random and seed"));
            }
        }
        if (!random) {
            if (seed != null) {
                violations.add(new Violation("order.seed", "applies only with random: true"));
            }
            return null;
        }
        return seed != null ? seed : new java.security.SecureRandom().nextLong() >>> 16;
    }

    private static Violation unknownParameter(String field, String key) {
        return new Violation(field, "unknown parameter '" + key + "'; known: " + Parameter.knownKeys());
    }

    private static boolean hasViolationAt(List<Violation> violations, String key) {
        return violations.stream().anyMatch(v -> v.field().equals(key) || v.field().endsWith("." + key)
                || v.field().contains("." + key + "["));
    }

    private static List<Map<String, Object>> crossProduct(Map<String, Object> base, Map<String, List<Object>> dimensions,
                                                          Map<String, List<Map<String, Object>>> zips) {
        List<Map<String, Object>> points = new ArrayList<>();
        Map<String, Object> first = new LinkedHashMap<>(EXPLICIT_DEFAULTS);
        first.putAll(base);
        points.add(first);
        for (var dimension : dimensions.entrySet()) {
            List<Map<String, Object>> next = new ArrayList<>(points.size() * dimension.getValue().size());
            for (Map<String, Object> point : points) {
                for (Object value : dimension.getValue()) {
                    if (value == null) {
                        continue;
                    }
                    Map<String, Object> p = new LinkedHashMap<>(point);
                    p.put(dimension.getKey(), value);
                    next.add(p);
                }
            }
            points = next;
        }
        for (List<Map<String, Object>> positions : zips.values()) {
            List<Map<String, Object>> next = new ArrayList<>(points.size() * positions.size());
            for (Map<String, Object> point : points) {
                for (Map<String, Object> position : positions) {
                    Map<String, Object> p = new LinkedHashMap<>(point);
                    p.putAll(position);
                    next.add(p);
                }
            }
            points = next;
        }
        return points;
    }

    /**
     * The controller's own limits on a point, which the engine cannot know: what one tcp run may open on a
     * host, and that its runs stream intervals (the engine's interval_ms 0, the summary only, is for qpbench:
     * the controller stores intervals, checks them against the summary and draws every chart from them).
     * Every other rule on a point is the engine's (see {@link SpecCheck}).
     */
    private static void checkConnections(List<Map<String, Object>> points, List<Violation> violations) {
        Set<String> seen = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            if (point.get(Parameter.INTERVAL_MS.key()) instanceof Number ms && ms.longValue() == 0) {
                String problem = "interval_ms 0 (the summary only) is for qpbench: an experiment's runs stream "
                        + "intervals, every chart and check is made from them; use 10..60000 (default 100)";
                if (seen.add(problem)) {
                    violations.add(new Violation("interval_ms", problem));
                }
            }
            long threads = number(point, Parameter.THREADS, 1);
            long qps = number(point, Parameter.QPS_PER_THREAD, 1);
            BigInteger connections = BigInteger.valueOf(threads).multiply(BigInteger.valueOf(qps));
            if ("tcp".equals(point.get(Parameter.PROVIDER.key())) && threads > 0 && qps > 0
                    && connections.compareTo(BigInteger.valueOf(Parameter.MAX_CONNECTIONS_PER_RUN)) > 0) {
                String problem = "threads " + threads + " x qps_per_thread " + qps + " = " + connections
                        + " connections exceeds " + Parameter.MAX_CONNECTIONS_PER_RUN + " per tcp run";
                if (seen.add(problem)) {
                    violations.add(new Violation("dimensions", problem));
                }
            }
        }
    }

    private static long number(Map<String, Object> point, Parameter p, long otherwise) {
        Object v = point.get(p.key());
        return v instanceof Number n ? n.longValue() : otherwise;
    }
}

package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import org.qplab.controller.search.AnomalySearch;
import org.qplab.engine.SpecKey;
import org.qplab.engine.provider.Providers;
import tools.jackson.databind.JsonNode;

/**
 * A matrix's {@code search: {anomalies: [DIMENSION, ...], seed, max_runs, max_minutes, below}}: a seeded walk over the
 * listed dimensions that flags points far below their neighbours (or whose NIC counters warned) and reduces each to
 * its minimal feature set (AnomalySearch). Each dimension takes its values from the matrix's {@code dimensions} list
 * for it, or else from its default ladder (powers of two, or the provider's choices, that the provider takes at the
 * base point); its reset value (where a reduction sets it back to) is its value in {@code base}, which a searched
 * dimension may have beside its list, else the provider's default, else its first value; the reset value is always
 * one of its values. Every point runs as base with the dimensions' values, then the matrix's overrides.
 *
 * @param names      the searched dimensions, in the matrix's order
 * @param values     each one's values (ascending Longs, or choices), the reset value among them
 * @param resets     each one's reset value
 * @param base       the parameters of every point, with the provider's explicit defaults
 */
public record AnomalySpec(List<String> names, List<List<Object>> values, List<Object> resets, Map<String, Object> base,
                          MatrixOverrides overrides, MatrixExcludes excludes, long seed, int maxMinutes, double below) {

    /** The dimensions an anomaly search may walk (each only where the experiment's provider takes it). */
    public static final List<String> DIMENSIONS = List.of("qps_per_thread", "msg_size", "tx_depth", "post_list",
            "signal_every", "cq_mode", "transport", "op");
    static final List<String> KEYS = List.of("anomalies", "seed", "max_runs", "max_minutes", "below");
    static final int DEFAULT_MAX_RUNS = 60;
    static final int DEFAULT_MAX_MINUTES = 60;
    private static final int MAX_MINUTES = 24 * 60;

    /** The default ladder of a numeric dimension: from, x factor, up to. */
    private static final Map<String, long[]> LADDERS = Map.of(
            "qps_per_thread", new long[] {1, 2, 128},
            "msg_size", new long[] {64, 4, 1 << 20},
            "tx_depth", new long[] {1, 4, 1024},
            "post_list", new long[] {1, 2, 64},
            "signal_every", new long[] {1, 2, 64});

    /** The planning settings. */
    public AnomalySearch.Settings settings(int maxRuns, int repeats) {
        List<AnomalySearch.Dimension> dimensions = new ArrayList<>();
        for (int d = 0; d < names.size(); d++) {
            List<Object> v = values.get(d);
            dimensions.add(new AnomalySearch.Dimension(names.get(d), v, v.indexOf(resets.get(d)),
                    ProviderKeys.byKey(names.get(d)).map(ProviderKey::numeric).orElse(false)));
        }
        return new AnomalySearch.Settings(dimensions, seed, maxRuns, repeats, below);
    }

    /** The run parameters of the point at these indices: base, the dimensions' values, then the overrides. */
    public Map<String, Object> point(List<Integer> at) {
        Map<String, Object> point = new LinkedHashMap<>(base);
        for (int d = 0; d < names.size(); d++) {
            point.put(names.get(d), values.get(d).get(at.get(d)));
        }
        return overrides.apply(point);
    }

    /** The indices of a run's parameters, or null when they are not a point of the search. */
    public List<Integer> indices(Map<String, Object> params) {
        List<Integer> at = new ArrayList<>();
        for (int d = 0; d < names.size(); d++) {
            Object value = params.get(names.get(d));
            int i = values.get(d).indexOf(value instanceof Number n ? (Object) n.longValue() : value);
            if (i < 0) {
                return null;
            }
            at.add(i);
        }
        return at;
    }

    /** Whether the point is left in by the matrix's exclude and the provider runs it (native: off the event loop). */
    public boolean runnable(List<Integer> at) {
        Map<String, Object> point = new LinkedHashMap<>(base);
        for (int d = 0; d < names.size(); d++) {
            point.put(names.get(d), values.get(d).get(at.get(d)));
        }
        return !excludes.excludes(point) && SpecCheck.verdict(overrides.apply(point)).isEmpty();
    }

    /** The base point's indices: every dimension at its reset value. */
    public List<Integer> resetIndices() {
        List<Integer> at = new ArrayList<>();
        for (int d = 0; d < names.size(); d++) {
            at.add(values.get(d).indexOf(resets.get(d)));
        }
        return at;
    }

    /** The names the matrix's search lists under anomalies (a list of strings), or none. */
    static Set<String> searched(JsonNode root) {
        Set<String> names = new HashSet<>();
        JsonNode search = root == null ? null : root.get("search");
        JsonNode list = search != null && search.isObject() ? search.get("anomalies") : null;
        if (list != null && list.isArray()) {
            list.forEach(n -> {
                if (n.isString()) {
                    names.add(n.stringValue());
                }
            });
        }
        return names;
    }

    /** Checks search: {anomalies: ...}; null when it is invalid (each problem in violations). */
    static AnomalySpec read(JsonNode root, JsonNode node, long runLimit, List<Violation> violations) {
        int before = violations.size();
        for (String key : node.propertyNames()) {
            if (!KEYS.contains(key)) {
                violations.add(new Violation("search." + key, "unknown key; an anomaly search has "
                        + String.join(", ", KEYS)));
            }
        }
        List<Violation> scratch = new ArrayList<>(); // the matrix's own parts report their problems themselves
        MatrixPoints matrix = MatrixPoints.read(root, scratch);
        Map<String, Object> base = matrix.base();
        Object provider = base.get("provider");
        List<String> names = new ArrayList<>();
        JsonNode list = node.get("anomalies");
        if (list == null || !list.isArray() || list.isEmpty()) {
            violations.add(new Violation("search.anomalies", "lists the dimensions to walk: some of " + DIMENSIONS));
        } else {
            for (int i = 0; i < list.size(); i++) {
                JsonNode name = list.get(i);
                String field = "search.anomalies[" + i + "]";
                if (!name.isString() || !DIMENSIONS.contains(name.stringValue())) {
                    violations.add(new Violation(field, (name.isString() ? name.stringValue() : name.toString())
                            + " cannot be searched for anomalies: the dimensions are " + DIMENSIONS));
                } else if (names.contains(name.stringValue())) {
                    violations.add(new Violation(field, name.stringValue() + " is listed twice"));
                } else if (provider != null && !ProviderKeys.byKey(name.stringValue())
                        .map(k -> k.providers().contains(provider)).orElse(false)) {
                    violations.add(new Violation(field, "provider " + provider + " does not take "
                            + name.stringValue() + " (it takes it on " + ProviderKeys.byKey(name.stringValue())
                            .map(ProviderKey::providers).orElse(List.of()) + ")"));
                } else {
                    names.add(name.stringValue());
                }
            }
        }
        JsonNode dims = root.get("dimensions");
        if (dims != null && dims.isObject()) {
            for (String key : dims.propertyNames()) {
                if (!names.contains(key) && ProviderKeys.byKey(key).isPresent() && !searched(root).contains(key)) {
                    violations.add(new Violation("dimensions." + key, "is not searched: list it in search.anomalies "
                            + "(its values are the walk's), or fix its value in base"));
                }
            }
        }
        JsonNode zips = root.get("zips");
        if (zips != null && !zips.isNull() && !zips.isEmpty()) {
            violations.add(new Violation("zips", "an anomaly search walks its dimensions one step at a time: list "
                    + "their values under dimensions"));
        }
        if ("latency".equals(base.get("mode"))) {
            violations.add(new Violation("base.mode", "an anomaly search judges bandwidth against the neighbours': "
                    + "mode latency has none"));
        }
        long seed = integer(node, "seed", 1, 0, Long.MAX_VALUE, violations);
        int maxMinutes = (int) integer(node, "max_minutes", DEFAULT_MAX_MINUTES, 1, MAX_MINUTES, violations);
        double below = 0.7;
        JsonNode b = node.get("below");
        if (b != null && (!b.isNumber() || b.doubleValue() < 0.05 || b.doubleValue() > 0.95)) {
            violations.add(new Violation("search.below", "must be a number between 0.05 and 0.95, got " + b));
        } else if (b != null) {
            below = b.doubleValue();
        }
        if (violations.size() > before) {
            return null;
        }
        List<List<Object>> values = new ArrayList<>();
        List<Object> resets = new ArrayList<>();
        for (String name : names) {
            List<Object> listed = matrix.dimensions().get(name);
            List<Object> domain = listed != null ? new ArrayList<>(listed.stream().filter(v -> v != null).distinct()
                    .toList()) : ladder(name, base);
            Object reset = base.containsKey(name) ? base.get(name) : providerDefault(name, base);
            if (reset == null) {
                if (domain.isEmpty()) {
                    violations.add(new Violation("search.anomalies", name + " has no value the provider takes at the "
                            + "base point: list its values under dimensions." + name));
                    return null;
                }
                reset = domain.get(0);
            }
            if (!domain.contains(reset)) {
                domain.add(reset);
            }
            if (reset instanceof Long) {
                domain.sort((x, y) -> Long.compare((Long) x, (Long) y));
            }
            values.add(List.copyOf(domain));
            resets.add(reset);
        }
        Map<String, Object> withDefaults = new LinkedHashMap<>(Providers.of(base).explicitDefaults(base));
        withDefaults.putAll(base);
        for (int d = 0; d < names.size(); d++) {
            withDefaults.put(names.get(d), resets.get(d));
        }
        MatrixOverrides overrides = MatrixOverrides.read(root.get("overrides"), scratch);
        MatrixExcludes excludes = MatrixExcludes.read(root.get("exclude"), scratch);
        return new AnomalySpec(List.copyOf(names), List.copyOf(values), List.copyOf(resets), withDefaults, overrides,
                excludes, seed, maxMinutes, below);
    }

    /** The provider's default of the key, as a matrix value (a Long for a number), or null when it has none. */
    private static Object providerDefault(String name, Map<String, Object> base) {
        for (SpecKey key : Providers.of(base).keys()) {
            if (key.name().equals(name) && key.defaultValue() != null) {
                return key.defaultValue() instanceof Number n ? (Object) n.longValue() : key.defaultValue();
            }
        }
        return null;
    }

    /** The dimension's default ladder: the values its provider takes at the base point. */
    private static List<Object> ladder(String name, Map<String, Object> base) {
        List<Object> candidates = new ArrayList<>();
        long[] ladder = LADDERS.get(name);
        if (ladder != null) {
            for (long v = ladder[0]; v <= ladder[2]; v *= ladder[1]) {
                candidates.add(v);
            }
        } else {
            candidates.addAll(ProviderKeys.byKey(name).map(ProviderKey::choices).orElse(List.of()));
        }
        List<Object> taken = new ArrayList<>();
        for (Object v : candidates) {
            Map<String, Object> point = new LinkedHashMap<>(base);
            point.put(name, v);
            if (!point.containsKey("msg_size")) {
                point.put("msg_size", 4096L); // a required key: any value lets the provider judge this one
            }
            if (SpecCheck.verdict(point).isEmpty()) {
                taken.add(v);
            }
        }
        return taken;
    }

    private static long integer(JsonNode node, String key, long fallback, long min, long max, List<Violation> violations) {
        JsonNode value = node.get(key);
        if (value == null) {
            return fallback;
        }
        if (!value.isIntegralNumber() || value.longValue() < min || value.longValue() > max) {
            violations.add(new Violation("search." + key, "must be an integer between " + min + " and " + max
                    + ", got " + value));
            return fallback;
        }
        return value.longValue();
    }
}

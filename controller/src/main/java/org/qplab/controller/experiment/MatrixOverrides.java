package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The matrix's overrides: {@code overrides: [{when: {parameter: condition, ...}, set: {parameter: value, ...}}]}. A
 * point that matches every condition of an entry's when (written as an exclude's: a value, a list of values, or a
 * comparison) takes the entry's set on top of its own values, entries in order; a lab that inlines small messages
 * only, or a test that rate-limits one combination (the planted anomaly of search: anomalies), says so in one rule.
 * Applied to every point of the cross product and to every point a search plans.
 */
public final class MatrixOverrides {

    private static final Set<String> KEYS = Set.of("when", "set");

    private record Override(MatrixExcludes.Rule when, Map<String, Object> set) {
    }

    private final List<Override> entries;

    private MatrixOverrides(List<Override> entries) {
        this.entries = entries;
    }

    /** The point with every matching entry's set applied (a new map; the point itself is not changed). */
    public Map<String, Object> apply(Map<String, Object> point) {
        Map<String, Object> out = new LinkedHashMap<>(point);
        for (Override entry : entries) {
            if (entry.when().matches(point)) {
                out.putAll(entry.set());
            }
        }
        return out;
    }

    /** Reads the list; an empty list (or {}, as a generated client sends an unset field) is none. */
    static MatrixOverrides read(JsonNode node, List<Violation> violations) {
        List<Override> entries = new ArrayList<>();
        if (node == null || node.isNull() || node.isEmpty() && (node.isObject() || node.isArray())) {
            return new MatrixOverrides(entries);
        }
        if (!node.isArray()) {
            violations.add(new Violation("overrides", "must be a list of {when: {parameter: condition, ...}, set: "
                    + "{parameter: value, ...}}"));
            return new MatrixOverrides(entries);
        }
        for (int i = 0; i < node.size(); i++) {
            JsonNode entry = node.get(i);
            String at = "overrides[" + i + "]";
            if (!entry.isObject()) {
                violations.add(new Violation(at, "must be {when: {parameter: condition, ...}, set: {parameter: value}}"));
                continue;
            }
            int before = violations.size();
            for (String key : entry.propertyNames()) {
                if (!KEYS.contains(key)) {
                    violations.add(new Violation(at + "." + key, "unknown key; an override has when and set"));
                }
            }
            MatrixExcludes.Rule when = MatrixExcludes.rule(entry.get("when"), at + ".when", violations);
            Map<String, Object> set = set(entry.get("set"), at + ".set", violations);
            if (violations.size() == before) {
                entries.add(new Override(when, set));
            }
        }
        return new MatrixOverrides(entries);
    }

    private static Map<String, Object> set(JsonNode node, String at, List<Violation> violations) {
        Map<String, Object> set = new LinkedHashMap<>();
        if (node == null || !node.isObject() || node.isEmpty()) {
            violations.add(new Violation(at, "must be a non-empty map of parameter: value"));
            return set;
        }
        for (var entry : node.properties()) {
            String field = at + "." + entry.getKey();
            var parameter = ProviderKeys.byKey(entry.getKey());
            if (parameter.isEmpty()) {
                violations.add(MatrixPoints.unknownParameter(field, entry.getKey()));
                continue;
            }
            if (entry.getValue().isArray() || entry.getValue().isObject()) {
                violations.add(new Violation(field, "must be a single value"));
                continue;
            }
            Object value = parameter.get().parse(entry.getValue(), field, violations);
            if (value != null) {
                set.put(entry.getKey(), value);
            }
        }
        return set;
    }
}

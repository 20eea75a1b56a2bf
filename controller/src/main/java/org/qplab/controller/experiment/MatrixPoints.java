package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import org.qplab.engine.provider.Providers;
import tools.jackson.databind.JsonNode;

/**
 * The matrix's points: reads base, dimensions and zips into parsed values, and crosses them into every
 * point of the matrix, in matrix order.
 *
 * @param base       parameters every point has
 * @param dimensions each dimension's values; an invalid value is kept as null so that every value keeps
 *                   its index
 * @param zips       each zip's positions, each a map of the parameters that position sets
 */
record MatrixPoints(Map<String, Object> base, Map<String, List<Object>> dimensions,
                    Map<String, List<Map<String, Object>>> zips) {

    static MatrixPoints read(JsonNode root, List<Violation> violations) {
        Map<String, Object> base = base(root.get("base"), violations);
        // a dimension an anomaly search walks has its reset value in base and its values under dimensions
        Map<String, List<Object>> dimensions = dimensions(root.get("dimensions"), base, AnomalySpec.searched(root),
                violations);
        return new MatrixPoints(base, dimensions, zips(root.get("zips"), base, dimensions, violations));
    }

    /** How many points the cross product makes, counting a dimension or zip left empty as one. */
    BigInteger count() {
        BigInteger total = BigInteger.ONE;
        for (List<Object> values : dimensions.values()) {
            total = total.multiply(BigInteger.valueOf(Math.max(1, values.size())));
        }
        for (List<Map<String, Object>> positions : zips.values()) {
            total = total.multiply(BigInteger.valueOf(Math.max(1, positions.size())));
        }
        return total;
    }

    /** Every point, in matrix order, from the valid values only, with its provider's defaults written in. */
    List<Map<String, Object>> crossProduct() {
        List<Map<String, Object>> points = new ArrayList<>();
        points.add(new LinkedHashMap<>(base));
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
        List<Map<String, Object>> withDefaults = new ArrayList<>(points.size());
        for (Map<String, Object> point : points) {
            // what curves and comparisons group by, at the provider's defaults where the matrix is silent
            Map<String, Object> p = new LinkedHashMap<>(Providers.of(point).explicitDefaults(point));
            p.putAll(point);
            withDefaults.add(p);
        }
        return withDefaults;
    }

    /** "unknown parameter 'msg_szie'; did you mean msg_size?", or every known key when none is near. */
    static Violation unknownParameter(String field, String key) {
        String near = Suggestions.didYouMean(key, ProviderKeys.names());
        return new Violation(field, "unknown parameter '" + key + "'; "
                + (near != null ? near : "known: " + ProviderKeys.knownKeys()));
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
            var parameter = ProviderKeys.byKey(entry.getKey());
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

    private static Map<String, List<Object>> dimensions(JsonNode node, Map<String, Object> base, Set<String> searched,
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
            var parameter = ProviderKeys.byKey(key);
            if (parameter.isEmpty()) {
                violations.add(unknownParameter(field, key));
                continue;
            }
            if (base.containsKey(key) && !searched.contains(key)) {
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
                parsed.add(parameter.get().parse(values.get(i), field + "[" + i + "]", violations));
            }
            dimensions.put(key, parsed);
        }
        return dimensions;
    }

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
            List<Map<String, Object>> positions = zipPositions(zip.getValue(), zipField, base, dimensions, zipped,
                    violations);
            if (positions != null && !positions.isEmpty()) {
                zips.put(zip.getKey(), positions);
            }
        }
        return zips;
    }

    /** One zip's positions, or null when any of its lists or values is refused. */
    private static List<Map<String, Object>> zipPositions(JsonNode zip, String zipField, Map<String, Object> base,
                                                          Map<String, List<Object>> dimensions, Set<String> zipped,
                                                          List<Violation> violations) {
        Integer length = null;
        String first = null;
        List<Map<String, Object>> positions = new ArrayList<>();
        boolean ok = true;
        for (var entry : zip.properties()) {
            String key = entry.getKey();
            String field = zipField + "." + key;
            var parameter = ProviderKeys.byKey(key);
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
        return ok ? positions : null;
    }
}

package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The matrix's exclude list: reads each entry (parameter: a value, a list of values or a comparison) into a
 * rule, and leaves out every point that matches all the conditions of some rule.
 */
final class MatrixExcludes {

    private static final Set<String> COMPARISONS = Set.of("eq", "ne", "gt", "ge", "lt", "le");

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

    /** One entry's conditions by parameter (an exclude's, an override's when); none (all refused) matches nothing. */
    record Rule(Map<String, Condition> conditions) {
        boolean matches(Map<String, Object> point) {
            for (var condition : conditions.entrySet()) {
                if (!condition.getValue().test(point.get(condition.getKey()))) {
                    return false;
                }
            }
            return !conditions.isEmpty();
        }
    }

    private final List<Rule> rules;

    private MatrixExcludes(List<Rule> rules) {
        this.rules = rules;
    }

    /** Whether some entry of the list leaves this point out. */
    boolean excludes(Map<String, Object> point) {
        return rules.stream().anyMatch(rule -> rule.matches(point));
    }

    static MatrixExcludes read(JsonNode node, List<Violation> violations) {
        List<Rule> rules = new ArrayList<>();
        if (node == null || node.isNull()) {
            return new MatrixExcludes(rules);
        }
        if (!node.isArray()) {
            violations.add(new Violation("exclude", "must be a list of {parameter: condition, ...}; a point matching "
                    + "every condition of an entry is left out"));
            return new MatrixExcludes(rules);
        }
        for (int i = 0; i < node.size(); i++) {
            Rule rule = rule(node.get(i), "exclude[" + i + "]", violations);
            if (rule != null) {
                rules.add(rule);
            }
        }
        return new MatrixExcludes(rules);
    }

    /** One map of parameter: condition (at names it in a refusal), or null when it is not a non-empty map. */
    static Rule rule(JsonNode entry, String at, List<Violation> violations) {
        if (entry == null || !entry.isObject() || entry.isEmpty()) {
            violations.add(new Violation(at, "must be a non-empty map of parameter: condition"));
            return null;
        }
        Map<String, Condition> conditions = new LinkedHashMap<>();
        for (var condition : entry.properties()) {
            String key = condition.getKey();
            String field = at + "." + key;
            var parameter = ProviderKeys.byKey(key);
            if (parameter.isEmpty()) {
                violations.add(MatrixPoints.unknownParameter(field, key));
                continue;
            }
            Condition parsed = condition(parameter.get(), condition.getValue(), field, violations);
            if (parsed != null) {
                conditions.put(key, parsed);
            }
        }
        return new Rule(conditions);
    }

    private static Condition condition(ProviderKey parameter, JsonNode value, String field, List<Violation> violations) {
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
}

package org.qplab.controller.history;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.controller.analysis.Metric;
import org.qplab.controller.api.Violation;
import org.qplab.controller.experiment.ExpectCheck;
import org.qplab.controller.experiment.Suggestions;
import org.springframework.stereotype.Component;
import tools.jackson.databind.JsonNode;

/**
 * Reads a matrix's expect rules: metric to a comparison, or a list of them.
 *
 * <pre>
 * expect:
 *   bw_avg_gbps: "&gt;= 90"                 # absolute, in the unit the name says (Gbit/s)
 *   latency_p99_us: ["&gt; 0", "&lt;= 5"]      # several limits on one metric
 *   bw_avg: "&gt;= 0.95 * baseline"         # relative to the run's fingerprint's baseline
 * </pre>
 *
 * A metric is named as the API names run-level metrics ({@link Metric#ALL}: bw_avg_bps in B/s, latency_p99_us in µs,
 * msg_rate, ...), a bandwidth also in Gbit/s, the dashboard's unit (bw_avg_gbps); a relative rule may leave the unit
 * out (bw_avg), since a ratio has none. Every bad rule is a violation at expect.NAME (expect.NAME[i] in a list).
 */
@Component
public class ExpectRules implements ExpectCheck {

    private static final Pattern RULE = Pattern.compile(
            "\\s*(>=|<=|>|<)\\s*(?:(NUM)\\s*(?:\\*\\s*(baseline))?|(baseline)(?:\\s*\\*\\s*(NUM))?)\\s*"
                    .replace("NUM", "[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?"));
    private static final String FORM = "must be a comparison like \">= 90\", \"<= 5\" or \">= 0.95 * baseline\" "
            + "(>=, <=, > or <; quoted in YAML)";

    /** A name a rule may use, the metric it reads and how. */
    private record Name(Metric metric, double scale, String unit) {}

    private static final Map<String, Name> NAMES = names();

    private static Map<String, Name> names() {
        Map<String, Name> names = new LinkedHashMap<>();
        for (Metric metric : Metric.ALL) {
            names.put(metric.name(), new Name(metric, 1, metric.unit()));
            String stem = metric.name().replaceFirst("_(bps|ns|us)$", "");
            names.putIfAbsent(stem, new Name(metric, 1, null));
            if (metric.unit().equals("B/s")) {
                names.put(stem + "_gbps", new Name(metric, 8e-9, "Gbit/s"));
            }
        }
        return names;
    }

    /** Every name a rule may use, sorted. */
    public static List<String> metricNames() {
        return NAMES.keySet().stream().sorted().toList();
    }

    @Override
    public void check(JsonNode expect, List<Violation> violations) {
        read(expect, violations);
    }

    /**
     * The rules of expect (null or empty: none, as a generated client sends a map it was not given), each bad one a
     * violation; the good ones in their order.
     */
    public static List<ExpectRule> read(JsonNode expect, List<Violation> violations) {
        List<ExpectRule> rules = new ArrayList<>();
        if (expect == null || expect.isNull()) {
            return rules;
        }
        if (!expect.isObject()) {
            violations.add(new Violation("expect", "must map metrics to limits, like {bw_avg_gbps: \">= 90\", "
                    + "latency_p99_us: \"<= 5\", bw_avg: \">= 0.95 * baseline\"}"));
            return rules;
        }
        for (Map.Entry<String, JsonNode> entry : expect.properties()) {
            String key = entry.getKey();
            Name name = NAMES.get(key);
            if (name == null) {
                String near = Suggestions.didYouMean(key, NAMES.keySet());
                violations.add(new Violation("expect." + key, "unknown metric; " + (near != null ? near + " (" : "(")
                        + "the metrics: " + String.join(", ", metricNames()) + ")"));
                continue;
            }
            JsonNode value = entry.getValue();
            if (value.isArray() && !value.isEmpty()) {
                for (int i = 0; i < value.size(); i++) {
                    rule(key, name, value.get(i), "expect." + key + "[" + i + "]", rules, violations);
                }
            } else {
                rule(key, name, value, "expect." + key, rules, violations);
            }
        }
        return rules;
    }

    private static void rule(String key, Name name, JsonNode value, String field, List<ExpectRule> rules,
                             List<Violation> violations) {
        Matcher m = value.isString() ? RULE.matcher(value.stringValue()) : null;
        if (m == null || !m.matches()) {
            violations.add(new Violation(field, FORM + ", got " + value));
            return;
        }
        boolean relative = m.group(3) != null || m.group(4) != null;
        String number = m.group(2) != null ? m.group(2) : m.group(5);
        double n = number == null ? 1 : Double.parseDouble(number);
        if (!Double.isFinite(n) || relative && !(n > 0)) {
            violations.add(new Violation(field, (relative ? "the factor of the baseline must be a positive number"
                    : "the limit must be a finite number") + ", got " + value));
            return;
        }
        if (!relative && name.unit() == null) {
            violations.add(new Violation(field, "an absolute limit needs the unit in the metric's name: "
                    + String.join(" or ", NAMES.entrySet().stream().filter(e -> e.getValue().metric() == name.metric()
                            && e.getValue().unit() != null).map(e -> e.getKey() + " (" + e.getValue().unit() + ")")
                            .toList()) + "; without one, compare with the baseline (\">= 0.95 * baseline\")"));
            return;
        }
        rules.add(new ExpectRule(key, name.metric(), name.scale(), name.unit(), ExpectRule.Op.of(m.group(1)), n, relative));
    }
}

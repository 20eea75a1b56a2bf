package org.qplab.controller.experiment;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * How an experiment on host pairs judges them, as ClusterKit judges a fabric: a pair is bad when its metric is below
 * badBelow x the best pair's (bandwidth, rates) or above badAbove x the best (times), and a bad pair is tested again,
 * up to retests times, staying bad only if it is bad every time. The matrix's top-level retests, bad_below and
 * bad_above; they apply only where the matrix places runs on pairs (hosts all_pairs, {group: ...}, {pairs: ...}).
 */
public record PairRules(int retests, double badBelow, double badAbove) {

    /** all_pairs and {group: ...}, a fabric's test: ClusterKit's rule and two retests. */
    public static final PairRules DEFAULT = new PairRules(2, 0.93, 2.1);
    /** {pairs: [...]}, pairs the matrix chose: judged by the same rule, retested only when it says so. */
    public static final PairRules CHOSEN_PAIRS = new PairRules(0, 0.93, 2.1);
    static final int MAX_RETESTS = 5;
    static final List<String> KEYS = List.of("retests", "bad_below", "bad_above");

    /** The rules of a stored matrix (its source), the defaults of its hosts form for what it leaves out. */
    public static PairRules of(Map<String, Object> source) {
        if (source == null) {
            return DEFAULT;
        }
        boolean fabric = "all_pairs".equals(source.get("hosts"))
                || source.get("hosts") instanceof Map<?, ?> hosts && hosts.containsKey("group");
        int retests = fabric ? DEFAULT.retests() : CHOSEN_PAIRS.retests();
        return new PairRules(source.get("retests") instanceof Number n ? n.intValue() : retests,
                source.get("bad_below") instanceof Number n ? n.doubleValue() : DEFAULT.badBelow(),
                source.get("bad_above") instanceof Number n ? n.doubleValue() : DEFAULT.badAbove());
    }

    /** Checks the matrix's retests, bad_below and bad_above; onPairs: whether its hosts place runs on pairs. */
    static void check(JsonNode root, boolean onPairs, List<Violation> violations) {
        for (String key : KEYS) {
            JsonNode node = root.get(key);
            if (node == null || node.isNull()) {
                continue;
            }
            if (!onPairs) {
                violations.add(new Violation(key, "judges host pairs: it needs hosts all_pairs, {group: [...]} or "
                        + "{pairs: [...]}"));
                continue;
            }
            switch (key) {
                case "retests" -> {
                    if (!node.isIntegralNumber() || node.longValue() < 0 || node.longValue() > MAX_RETESTS) {
                        violations.add(new Violation(key, "must be an integer between 0 and " + MAX_RETESTS
                                + " (how many times a bad pair is tested again), got " + node));
                    }
                }
                case "bad_below" -> {
                    if (!node.isNumber() || !(node.doubleValue() > 0 && node.doubleValue() <= 1)) {
                        violations.add(new Violation(key, "must be a fraction of the best pair's bandwidth or rate, "
                                + "0 < bad_below <= 1, got " + node));
                    }
                }
                default -> {
                    if (!node.isNumber() || !(node.doubleValue() >= 1 && Double.isFinite(node.doubleValue()))) {
                        violations.add(new Violation(key, "must be a multiple of the best pair's time, bad_above >= 1, "
                                + "got " + node));
                    }
                }
            }
        }
    }
}

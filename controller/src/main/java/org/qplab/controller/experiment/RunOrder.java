package org.qplab.controller.experiment;

import java.security.SecureRandom;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The matrix's run order: sequential (matrix order) or random with a seed, chosen when none is given
 * and stored with the experiment so that the order can be replayed.
 *
 * @param seed the seed of a random order, or null to run in matrix order
 */
record RunOrder(Long seed) {

    private static final RunOrder SEQUENTIAL = new RunOrder(null);
    private static final String FORMS = "must be sequential (the default) or {random: true, seed: N} (seed optional: "
            + "one is chosen and stored with the experiment)";

    static RunOrder read(JsonNode node, List<Violation> violations) {
        if (node == null || node.isNull() || (node.isString() && node.stringValue().equals("sequential"))) {
            return SEQUENTIAL;
        }
        if (!node.isObject()) {
            violations.add(new Violation("order", FORMS + "; got " + node));
            return SEQUENTIAL;
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
            return SEQUENTIAL;
        }
        return new RunOrder(seed != null ? seed : new SecureRandom().nextLong() >>> 16);
    }

    /** Puts the runs in this order, and writes the seed actually used into the matrix's stored source. */
    void arrange(List<Matrix.RunPoint> runs, Map<String, Object> source) {
        if (seed == null) {
            return;
        }
        Collections.shuffle(runs, new Random(seed));
        source.put("order", new LinkedHashMap<>(Map.of("random", true, "seed", seed)));
    }
}

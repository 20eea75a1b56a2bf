package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;

/**
 * The controller's own limits on a point, which the engine cannot know: what one tcp run may open on a
 * host, and that its runs stream intervals. Every other rule on a point is the engine's ({@link SpecCheck}).
 */
final class PointLimits {

    /**
     * Connections a tcp run may open in all (each costs two descriptors in loopback): the controller's
     * limit on what one run may ask of a host, which the engine does not know.
     */
    static final long MAX_CONNECTIONS_PER_RUN = 65_536;

    private PointLimits() {
    }

    /**
     * Each problem is listed once however many points share it. interval_ms 0 (the engine's summary-only
     * mode) is for qpbench: the controller stores intervals, checks them against the summary and draws
     * every chart from them.
     */
    static void check(List<Map<String, Object>> points, List<Violation> violations) {
        Set<String> seen = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            if (point.get("interval_ms") instanceof Number ms && ms.longValue() == 0) {
                String problem = "interval_ms 0 (the summary only) is for qpbench: an experiment's runs stream "
                        + "intervals, every chart and check is made from them; use 10..60000 (default "
                        + ProviderKeys.engineDefault("interval_ms") + ")";
                if (seen.add(problem)) {
                    violations.add(new Violation("interval_ms", problem));
                }
            }
            long threads = number(point, "threads");
            long qps = number(point, "qps_per_thread");
            BigInteger connections = BigInteger.valueOf(threads).multiply(BigInteger.valueOf(qps));
            if ("tcp".equals(point.get("provider")) && threads > 0 && qps > 0
                    && connections.compareTo(BigInteger.valueOf(MAX_CONNECTIONS_PER_RUN)) > 0) {
                String problem = "threads " + threads + " x qps_per_thread " + qps + " = " + connections
                        + " connections exceeds " + MAX_CONNECTIONS_PER_RUN + " per tcp run";
                if (seen.add(problem)) {
                    violations.add(new Violation("dimensions", problem));
                }
            }
        }
    }

    private static long number(Map<String, Object> point, String key) {
        Object v = point.get(key);
        return v instanceof Number n ? n.longValue() : (Long) ProviderKeys.engineDefault(key);
    }
}

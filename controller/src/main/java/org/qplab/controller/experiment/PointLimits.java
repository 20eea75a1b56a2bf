package org.qplab.controller.experiment;

import java.math.BigInteger;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.qplab.controller.api.Violation;
import org.qplab.engine.provider.Providers;

/**
 * The limits on a point that its provider's own check does not apply: what one run may open on a host (the
 * provider's {@code connectionLimit}: tcp's), and that an experiment's runs stream intervals. Every other rule on a
 * point is its provider's ({@link SpecCheck}).
 */
final class PointLimits {

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
            Long limit = Providers.of(point).connectionLimit(point);
            if (limit != null && threads > 0 && qps > 0 && connections.compareTo(BigInteger.valueOf(limit)) > 0) {
                String problem = "threads " + threads + " x qps_per_thread " + qps + " = " + connections
                        + " connections exceeds " + limit + " per " + point.get("provider") + " run";
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

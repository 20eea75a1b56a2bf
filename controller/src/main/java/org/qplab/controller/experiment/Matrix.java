package org.qplab.controller.experiment;

import java.util.List;
import java.util.Map;
import org.qplab.controller.api.Violation;

/**
 * A validated experiment matrix, expanded: every run's engine parameters, in run order.
 *
 * @param name   the experiment's name
 * @param source the matrix as submitted, as a JSON-compatible tree (stored with the experiment)
 * @param runs   one entry per run: the parameters, the repeat index and the hosts it must run on
 * @param warnings what does not refuse the matrix but may keep it from running as meant (an offline host), each
 *                 where in the matrix it is
 */
public record Matrix(String name, Map<String, Object> source, List<RunPoint> runs, List<Violation> warnings) {

    public Matrix(String name, Map<String, Object> source, List<RunPoint> runs) {
        this(name, source, runs, List.of());
    }

    /**
     * One run of the matrix: the engine parameters, which repeat of its point it is, and where it runs:
     * client and server null = loopback on any agent; only client = loopback on that host; both = a
     * client/server pair across two hosts.
     */
    public record RunPoint(Map<String, Object> params, int repeat, String client, String server) {
        public RunPoint(Map<String, Object> params, int repeat) {
            this(params, repeat, null, null);
        }
    }
}

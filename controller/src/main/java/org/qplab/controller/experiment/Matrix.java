package org.qplab.controller.experiment;

import java.util.List;
import java.util.Map;

/**
 * A validated experiment matrix, expanded: every run's engine parameters, in run order.
 *
 * @param name   the experiment's name
 * @param source the matrix as submitted, as a JSON-compatible tree (stored with the experiment)
 * @param runs   one entry per run: the parameters and the repeat index
 */
public record Matrix(String name, Map<String, Object> source, List<RunPoint> runs) {

    /** One run of the matrix: the engine parameters and which repeat of its point it is. */
    public record RunPoint(Map<String, Object> params, int repeat) {}
}

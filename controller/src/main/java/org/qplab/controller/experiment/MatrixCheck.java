package org.qplab.controller.experiment;

/**
 * A valid matrix as POST /api/experiments/validate sees it: its name, the runs it expands to, and
 * the distinct points among them (runs / repeats).
 */
public record MatrixCheck(String name, int runs, int points) {

    static MatrixCheck of(Matrix matrix) {
        int points = (int) matrix.runs().stream().filter(run -> run.repeat() == 0).count();
        return new MatrixCheck(matrix.name(), matrix.runs().size(), points);
    }
}

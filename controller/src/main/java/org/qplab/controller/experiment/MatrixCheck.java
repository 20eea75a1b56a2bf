package org.qplab.controller.experiment;

import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A valid matrix as POST /api/experiments/validate sees it: its name, the runs it expands to, and
 * the distinct points among them (runs / repeats).
 */
@Schema(description = "What a valid matrix expands to.")
public record MatrixCheck(@Schema(description = "The matrix's name.") String name,
                          @Schema(description = "The runs it would queue (points × repeats × host pairs).") int runs,
                          @Schema(description = "The distinct points among them.") int points) {

    static MatrixCheck of(Matrix matrix) {
        int points = (int) matrix.runs().stream().filter(run -> run.repeat() == 0).count();
        return new MatrixCheck(matrix.name(), matrix.runs().size(), points);
    }
}

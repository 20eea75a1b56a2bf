package org.qplab.controller.experiment;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import org.qplab.controller.api.Violation;

/**
 * A valid matrix as POST /api/experiments/validate sees it: its name, the runs it expands to, the distinct points
 * among them (runs / repeats), what may keep it from running as meant (an offline host, agents that cannot run some
 * of its points), and how long its runs would take.
 */
@Schema(description = "What a valid matrix expands to.")
public record MatrixCheck(@Schema(description = "The matrix's name.") String name,
                          @Schema(description = "The runs it would queue (points × repeats × host pairs).") int runs,
                          @Schema(description = "The distinct points among them.") int points,
                          @Schema(description = "What does not refuse the matrix but may keep it from running as "
                                  + "meant: a named host that is not connected (offline or unknown), agents that "
                                  + "cannot run points placed on any agent, no agent connected; each where in the "
                                  + "matrix it is.") List<Violation> warnings,
                          @Schema(description = "How long its runs would take one after another.") RunsEstimate estimate) {

    static MatrixCheck of(Matrix matrix, RunsEstimate estimate) {
        int points = (int) matrix.runs().stream().filter(run -> run.repeat() == 0).count();
        return new MatrixCheck(matrix.name(), matrix.runs().size(), points, matrix.warnings(), estimate);
    }
}

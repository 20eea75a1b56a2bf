package org.qplab.controller.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.qplab.controller.api.Violation;

/**
 * An experiment as the API shows it: its status and how far its runs have got (runsTotal counts the
 * points of its matrix; runsRetried the failed tries that a later run of the same point replaced, which
 * are not in the other counts). secondsLeft is an
 * estimate while it is queued or running: the runs not yet ended × the mean duration of its finished
 * runs ÷ the runs running now (at least one); absent until a run has finished. providers: its runs' providers;
 * tool: "qplab" for an experiment qplab ran, else the program whose output was imported (importedFrom "perftest",
 * tool "ib_send_bw"); agents: the agents its runs ran on (an agent's id is its host name unless it was given one);
 * expectations: how its runs met its matrix's expect rules (absent without any).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "An experiment: its status and how far its runs have got. runsTotal counts the points of its "
        + "matrix; runsRetried the failed tries a later run of the same point replaced, which are not in the other "
        + "counts. secondsLeft estimates the time left while it is queued or running (absent until a run finished).")
public record Experiment(long id, String name,
                         @Schema(allowableValues = {"QUEUED", "RUNNING", "FINISHED", "FAILED", "CANCELLED"})
                         String status, OffsetDateTime createdAt, OffsetDateTime finishedAt,
                         int runsTotal, int runsDone, int runsFailed, int runsRunning, int runsRetried, Double meanRunSeconds,
                         Double secondsLeft, Map<String, Object> matrix, String submittedBy,
                         @Schema(description = "The providers of its runs (their provider parameter), sorted; an "
                                 + "import's: perftest.")
                         List<String> providers,
                         @Schema(description = "What measured it: qplab, or for an import the program whose output it "
                                 + "is (importedFrom says whose).", example = "qplab")
                         String tool,
                         @Schema(description = "Where an import came from (perftest); absent for an experiment qplab ran.",
                                 nullable = true)
                         String importedFrom,
                         @Schema(description = "The agents its runs ran on, client and server, sorted; empty before "
                                 + "a run started and for an import.")
                         List<String> agents,
                         @Schema(description = "Only in a submit's answer: what did not refuse the matrix but may keep "
                                 + "it from running as meant (a named host not connected, agents that cannot run "
                                 + "points placed on any agent), as the validate answer lists them.")
                         List<Violation> warnings,
                         @Schema(description = "How its runs met its matrix's expect rules; absent when it has none.",
                                 nullable = true)
                         ExperimentExpectations expectations) {

    /** This experiment as a submit answers it, with the matrix's warnings. */
    Experiment withWarnings(List<Violation> warnings) {
        return new Experiment(id, name, status, createdAt, finishedAt, runsTotal, runsDone, runsFailed, runsRunning,
                runsRetried, meanRunSeconds, secondsLeft, matrix, submittedBy, providers, tool, importedFrom, agents,
                List.copyOf(warnings), expectations);
    }

    /** This experiment with its expectations' failures listed. */
    Experiment withExpectations(ExperimentExpectations expectations) {
        return new Experiment(id, name, status, createdAt, finishedAt, runsTotal, runsDone, runsFailed, runsRunning,
                runsRetried, meanRunSeconds, secondsLeft, matrix, submittedBy, providers, tool, importedFrom, agents,
                warnings, expectations);
    }

    static Double secondsLeft(String status, int total, int done, int running, Double meanRunSeconds) {
        if (meanRunSeconds == null || !(status.equals("QUEUED") || status.equals("RUNNING"))) {
            return null;
        }
        return (total - done) * meanRunSeconds / Math.max(1, running);
    }
}

package org.qplab.controller.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * How long a matrix's runs would take one after another, and how that was estimated ({@link DurationEstimate}).
 *
 * @param seconds       the estimated runs' seconds in all; null when no run's length could be estimated
 * @param estimatedRuns the runs counted in seconds
 * @param unknownRuns   the runs whose length is unknown (by count, and no similar run has finished here)
 * @param basis         how: which runs by their planned length, which from finished runs, what overhead was added
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@Schema(description = "How long the runs would take one after another (several agents run some at once), and how "
        + "that was estimated: a time-based run by its planned length (duration_ms, nvmeof's runtime_ms), a run by "
        + "count from the cycle rate of similar finished runs, a point from finished runs of the same parameters; "
        + "each plus the per-run overhead measured over finished runs.")
public record RunsEstimate(
        @Schema(description = "Seconds, for the runs whose length could be estimated; absent when none could.")
        Double seconds,
        @Schema(description = "The runs counted in seconds.") int estimatedRuns,
        @Schema(description = "The runs whose length is unknown.") int unknownRuns,
        @Schema(description = "How it was estimated, in words.") String basis) {
}

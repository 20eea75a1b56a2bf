package org.qplab.controller.api;

import io.swagger.v3.oas.annotations.media.Schema;

/** The 429 answer: the limit the request would pass, its value, what is in use and what was asked for. */
@Schema(name = "QuotaExceededError", description = "The request would pass a limit; nothing was stored.")
public record QuotaExceededBody(
        @Schema(description = "Why, in one sentence.", requiredMode = Schema.RequiredMode.REQUIRED)
        String error,
        @Schema(description = "The limit's property.", requiredMode = Schema.RequiredMode.REQUIRED,
                example = "qplab.limits.queued-runs")
        String limit,
        @Schema(description = "The limit's value, in runs.", requiredMode = Schema.RequiredMode.REQUIRED)
        long value,
        @Schema(description = "Runs queued or running now that count against the limit.",
                requiredMode = Schema.RequiredMode.REQUIRED)
        long queued,
        @Schema(description = "Runs the request asked for.", requiredMode = Schema.RequiredMode.REQUIRED)
        long requested) {}

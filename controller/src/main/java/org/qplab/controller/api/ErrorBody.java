package org.qplab.controller.api;

import io.swagger.v3.oas.annotations.media.Schema;

/** What the API answers when it refuses a request (401, 403, 404, 409, 413, 502): one sentence saying why. */
@Schema(name = "Error", description = "Why the request was refused, in one sentence meant for a person.")
public record ErrorBody(
        @Schema(description = "What is wrong and, where there is one, what to do about it.",
                requiredMode = Schema.RequiredMode.REQUIRED, example = "no experiment 42")
        String error) {}

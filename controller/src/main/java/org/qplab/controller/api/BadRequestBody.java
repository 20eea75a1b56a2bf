package org.qplab.controller.api;

import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;

/** The 400 answer: every problem found in the request at once, each where it is. */
@Schema(name = "BadRequestError", description = "The request is invalid; every problem found in it is listed at once.")
public record BadRequestBody(
        @Schema(description = "What was refused: invalid matrix, invalid text, invalid host, bad request, ...",
                requiredMode = Schema.RequiredMode.REQUIRED, example = "invalid matrix")
        String error,
        @Schema(description = "Each problem, where it is. Absent when the request was refused before the API read it "
                + "(a Host this controller does not answer to, a URL the firewall refuses).")
        List<Violation> violations) {}

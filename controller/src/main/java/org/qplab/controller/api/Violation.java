package org.qplab.controller.api;

import io.swagger.v3.oas.annotations.media.Schema;

/** One problem in a submitted matrix: where it is (a path like dimensions.msg_size[2]) and what is wrong. */
@Schema(description = "One problem of a request, where it is.")
public record Violation(
        @Schema(description = "Where: a path into the body (dimensions.msg_size[2]), a parameter or header name, "
                + "'line N' of an import; empty for the body as a whole.", requiredMode = Schema.RequiredMode.REQUIRED,
                example = "dimensions.msg_size[2]")
        String field,
        @Schema(description = "What is wrong there.", requiredMode = Schema.RequiredMode.REQUIRED,
                example = "msg_size must be in 1..1073741824 (got 0)")
        String message) {}

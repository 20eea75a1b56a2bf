package org.qplab.controller.api;

import java.util.List;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.unit.DataSize;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ContentTooLargeException;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;

/** Error bodies of the REST API: {"error": "...", "violations": [{"field", "message"}]}. */
@RestControllerAdvice
class ApiErrors {

    private final DataSize maxBody;

    ApiErrors(@Value("${spring.codec.max-in-memory-size:256KB}") DataSize maxBody) {
        this.maxBody = maxBody;
    }

    @ExceptionHandler(BadRequest.class)
    ResponseEntity<BadRequestBody> badRequest(BadRequest e) {
        return ResponseEntity.badRequest().body(new BadRequestBody(e.error(), e.violations()));
    }

    @ExceptionHandler(ServerWebInputException.class)
    ResponseEntity<BadRequestBody> badInput(ServerWebInputException e, ServerWebExchange exchange) {
        return ResponseEntity.badRequest().body(new BadRequestBody("bad request",
                List.of(InputViolation.of(e, exchange.getRequest().getPath().value()))));
    }

    @ExceptionHandler(Forbidden.class)
    ResponseEntity<ErrorBody> forbidden(Forbidden e) {
        return ResponseEntity.status(HttpStatus.FORBIDDEN).body(new ErrorBody(e.getMessage()));
    }

    @ExceptionHandler(Conflict.class)
    ResponseEntity<ErrorBody> conflict(Conflict e) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(new ErrorBody(e.getMessage()));
    }

    @ExceptionHandler(QuotaExceeded.class)
    ResponseEntity<QuotaExceededBody> quotaExceeded(QuotaExceeded e) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body(new QuotaExceededBody(e.getMessage(),
                e.limit(), e.value(), e.inUse(), e.requested()));
    }

    @ExceptionHandler(NotFound.class)
    ResponseEntity<ErrorBody> notFound(NotFound e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(new ErrorBody(e.getMessage()));
    }

    /** A body Spring would buffer past spring.codec.max-in-memory-size: refused before the endpoint reads it. */
    @ExceptionHandler(ContentTooLargeException.class)
    ResponseEntity<ErrorBody> contentTooLarge(ContentTooLargeException e) {
        return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(new ErrorBody("the request body is larger than "
                + maxBody.toBytes() + " bytes, the most this controller reads (spring.codec.max-in-memory-size)"));
    }
}

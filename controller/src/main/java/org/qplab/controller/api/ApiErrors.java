package org.qplab.controller.api;

import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebInputException;

/** Error bodies of the REST API: {"error": "...", "violations": [{"field", "message"}]}. */
@RestControllerAdvice
class ApiErrors {

    @ExceptionHandler(BadRequest.class)
    ResponseEntity<Map<String, Object>> badRequest(BadRequest e) {
        return ResponseEntity.badRequest().body(Map.of("error", e.error(), "violations", e.violations()));
    }

    @ExceptionHandler(ServerWebInputException.class)
    ResponseEntity<Map<String, Object>> badInput(ServerWebInputException e, ServerWebExchange exchange) {
        return ResponseEntity.badRequest().body(Map.of("error", "bad request",
                "violations", List.of(InputViolation.of(e, exchange.getRequest().getPath().value()))));
    }

    @ExceptionHandler(Forbidden.class)
    ResponseEntity<Map<String, Object>> forbidden(Forbidden e) {
        return ResponseEntity.status(HttpStatus.FORBIDDEN).body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler(Conflict.class)
    ResponseEntity<Map<String, Object>> conflict(Conflict e) {
        return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", e.getMessage()));
    }

    @ExceptionHandler(QuotaExceeded.class)
    ResponseEntity<Map<String, Object>> quotaExceeded(QuotaExceeded e) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body(Map.of("error", e.getMessage(),
                "limit", e.limit(), "value", e.value(), "queued", e.inUse(), "requested", e.requested()));
    }

    @ExceptionHandler(NotFound.class)
    ResponseEntity<Map<String, Object>> notFound(NotFound e) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Map.of("error", e.getMessage()));
    }
}

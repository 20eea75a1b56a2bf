package org.qplab.controller.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.server.ServerWebExchange;

/**
 * Refuses, before any endpoint of the REST API runs, a request whose query parameters (names or values) or path
 * variables hold text {@link ValidText} refuses: 400 with one violation per parameter, named as the endpoint
 * names it (name, file, status, ...). Path variables are decoded and matched by then, so a host name with a
 * NUL is named "name" too.
 */
@RestControllerAdvice
class RequestText {

    @ModelAttribute
    void refuseInvalidText(ServerWebExchange exchange) {
        List<Violation> violations = new ArrayList<>();
        Map<String, String> pathVariables = exchange.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
        if (pathVariables != null) {
            pathVariables.forEach((name, value) -> ValidText.check(name, value, violations));
        }
        exchange.getRequest().getQueryParams().forEach((name, values) -> {
            String problem = ValidText.problem(name);
            if (problem != null) {
                violations.add(new Violation(ValidText.printable(name), "the parameter's name " + problem));
                return;
            }
            for (String value : values) {
                ValidText.check(name, value, violations);
            }
        });
        if (!violations.isEmpty()) {
            throw new BadRequest("invalid text", violations);
        }
    }
}

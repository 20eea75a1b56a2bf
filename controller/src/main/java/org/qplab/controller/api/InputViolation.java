package org.qplab.controller.api;

import org.springframework.beans.TypeMismatchException;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.MethodParameter;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.server.MissingRequestValueException;
import org.springframework.web.server.ServerWebInputException;

/**
 * The violation of a request Spring could not bind to an endpoint's parameters: a query parameter, path variable or
 * header that is missing or not of its type is named, with the type it must have and what was sent
 * ({@code id: must be an integer (an experiment id), got 'abc'}); an unreadable body keeps Spring's reason.
 */
final class InputViolation {

    private static final int SHOWN = 64;

    private InputViolation() {}

    static Violation of(ServerWebInputException e, String path) {
        if (e instanceof MissingRequestValueException missing) {
            return new Violation(missing.getName(), "is required: " + expected(missing.getType()) + ", as a "
                    + missing.getLabel());
        }
        MethodParameter parameter = e.getMethodParameter();
        String name = parameter == null ? null : name(parameter);
        if (name == null) {
            return new Violation("", String.valueOf(e.getReason()));
        }
        if (e.getCause() instanceof TypeMismatchException mismatch && mismatch.getRequiredType() != null) {
            return new Violation(name, "must be " + expected(mismatch.getRequiredType()) + of(name, path) + ", got '"
                    + shown(mismatch.getValue()) + "'");
        }
        return new Violation(name, String.valueOf(e.getReason()));
    }

    /** The parameter's name as a request spells it; null for a body. */
    private static String name(MethodParameter parameter) {
        PathVariable pathVariable = parameter.getParameterAnnotation(PathVariable.class);
        RequestParam requestParam = parameter.getParameterAnnotation(RequestParam.class);
        RequestHeader requestHeader = parameter.getParameterAnnotation(RequestHeader.class);
        String declared = pathVariable != null ? pathVariable.name() : requestParam != null ? requestParam.name()
                : requestHeader != null ? requestHeader.name() : null;
        if (declared == null || !declared.isEmpty()) {
            return declared;
        }
        MethodParameter named = new MethodParameter(parameter);
        named.initParameterNameDiscovery(new DefaultParameterNameDiscoverer());
        return named.getParameterName();
    }

    private static String expected(Class<?> type) {
        if (type == long.class || type == Long.class || type == int.class || type == Integer.class
                || type == short.class || type == Short.class) {
            return "an integer";
        }
        if (type == double.class || type == Double.class || type == float.class || type == Float.class) {
            return "a number";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        return "a " + type.getSimpleName();
    }

    /** What an {id} path variable identifies: /api/experiments/{id} an experiment, /api/runs/{id} a run. */
    private static String of(String name, String path) {
        if (!name.equals("id")) {
            return "";
        }
        return path.startsWith("/api/experiments/") ? " (an experiment id)"
                : path.startsWith("/api/runs/") ? " (a run id)" : "";
    }

    private static String shown(Object value) {
        String text = ValidText.printable(String.valueOf(value));
        return text.length() <= SHOWN ? text : text.substring(0, SHOWN) + "…";
    }
}

package org.qplab.controller.api;

import io.swagger.v3.core.converter.ModelConverters;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import java.util.Map;
import java.util.TreeMap;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * The error answers of the OpenAPI document, declared once under components/responses with their bodies' schemas
 * ({@link ErrorBody}, {@link BadRequestBody}, {@link QuotaExceededBody}). Those every operation can answer are added
 * to each: 400 (every query parameter and path variable is checked by {@link RequestText}, every URL by the
 * firewall), 401 (no login, or an unknown token), 403 on every change (a role that may not, or a session without
 * its CSRF token) and 413 on every body (spring.codec.max-in-memory-size). The others (403 on admin-only reads, 404,
 * 409, 429, 502) are declared by the endpoints that answer them: {@code @ApiResponse(responseCode = "404", ref =
 * ErrorResponses.NOT_FOUND)}.
 */
@Component
public class ErrorResponses implements OpenApiCustomizer {

    public static final String BAD_REQUEST = "#/components/responses/BadRequest";
    public static final String UNAUTHORIZED = "#/components/responses/Unauthorized";
    public static final String FORBIDDEN = "#/components/responses/Forbidden";
    public static final String NOT_FOUND = "#/components/responses/NotFound";
    public static final String CONFLICT = "#/components/responses/Conflict";
    public static final String CONTENT_TOO_LARGE = "#/components/responses/ContentTooLarge";
    public static final String TOO_MANY_REQUESTS = "#/components/responses/TooManyRequests";
    public static final String BAD_GATEWAY = "#/components/responses/BadGateway";

    @Override
    public void customise(OpenAPI api) {
        Components components = api.getComponents();
        for (Class<?> body : new Class<?>[] {ErrorBody.class, BadRequestBody.class, QuotaExceededBody.class}) {
            ModelConverters.getInstance(true).readAll(body).forEach(components::addSchemas);
        }
        add(components, BAD_REQUEST, "BadRequestError", "The request is invalid: a query parameter, path variable, "
                + "header or body field (each named in violations), or text PostgreSQL cannot store (a NUL, another "
                + "control character, half a surrogate pair). Nothing was changed.");
        add(components, UNAUTHORIZED, "Error", "Not logged in: neither a session nor an API token, or an API token "
                + "that is unknown or revoked, or a session whose account was deleted or whose password changed since. "
                + "An address that sent too many unknown tokens hears 429 with Retry-After instead, until it waits.");
        add(components, FORBIDDEN, "Error", "The caller's role may not do this (the error names the role needed), "
                + "or a change sent with the session cookie lacks its CSRF token (X-XSRF-TOKEN).");
        add(components, NOT_FOUND, "Error", "There is no such resource; the error names what is missing.");
        add(components, CONFLICT, "Error", "The resource's state does not allow this now; the error says why and "
                + "what to do first.");
        add(components, CONTENT_TOO_LARGE, "Error", "The request body is larger than the controller reads "
                + "(spring.codec.max-in-memory-size, 4 MB by default). Nothing was changed.");
        add(components, TOO_MANY_REQUESTS, "QuotaExceededError", "The request would pass a limit (the body names "
                + "it, its value, what is in use and what was asked for). Nothing was stored.");
        add(components, BAD_GATEWAY, "Error", "SSH to the host failed, or the agent there did not start or register; "
                + "the error has what the host answered.");

        api.getPaths().values().forEach(path -> path.readOperationsMap().forEach((method, operation) -> {
            Map<String, ApiResponse> responses = new TreeMap<>(operation.getResponses());
            responses.putIfAbsent("400", ref(BAD_REQUEST));
            responses.putIfAbsent("401", ref(UNAUTHORIZED));
            if (method != PathItem.HttpMethod.GET) {
                responses.putIfAbsent("403", ref(FORBIDDEN));
            }
            if (operation.getRequestBody() != null) {
                responses.putIfAbsent("413", ref(CONTENT_TOO_LARGE));
            }
            ApiResponses sorted = new ApiResponses();
            sorted.putAll(responses);
            operation.setResponses(sorted);
        }));
    }

    private static void add(Components components, String ref, String schema, String description) {
        components.addResponses(ref.substring(ref.lastIndexOf('/') + 1), new ApiResponse().description(description)
                .content(new Content().addMediaType(org.springframework.http.MediaType.APPLICATION_JSON_VALUE,
                        new MediaType().schema(new Schema<>().$ref("#/components/schemas/" + schema)))));
    }

    private static ApiResponse ref(String ref) {
        return new ApiResponse().$ref(ref);
    }
}

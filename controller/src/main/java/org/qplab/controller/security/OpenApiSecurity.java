package org.qplab.controller.security;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.stereotype.Component;

/**
 * How the OpenAPI document says callers authenticate ({@link SecurityConfiguration}): a bearer API token or the
 * dashboard's session cookie, either one on every operation; the reads anyone may make under
 * qplab.security.anonymous-read say so.
 */
@Component
class OpenApiSecurity implements OpenApiCustomizer {

    static final String BEARER = "apiToken";
    static final String SESSION = "session";
    /** The reads that need a login even with anonymous read: the caller's own, and the admins'. */
    private static final Set<String> NEVER_ANONYMOUS = Set.of("/api/me", "/api/tokens", "/api/users", "/api/audit",
            "/api/hosts/{name}/logs");

    @Override
    public void customise(OpenAPI api) {
        api.getComponents()
                .addSecuritySchemes(BEARER, new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                        .bearerFormat("qplab API token").description("For scripts: an API token (qplab_...), made "
                                + "on the dashboard or with POST /api/tokens, sent as 'Authorization: Bearer "
                                + "qplab_...'. It acts with its account's role; no session and no CSRF token are "
                                + "involved."))
                .addSecuritySchemes(SESSION, new SecurityScheme().type(SecurityScheme.Type.APIKEY)
                        .in(SecurityScheme.In.COOKIE).name("SESSION").description("For browsers: the session cookie "
                                + "that logging in on the dashboard (the form at POST /login: username, password) sets "
                                + "(HttpOnly, SameSite=Strict, Secure over HTTPS). Every change (POST, PUT, DELETE) "
                                + "sent with it must carry the header X-XSRF-TOKEN set to the value of the XSRF-TOKEN "
                                + "cookie, else it is refused with 403."));
        api.addSecurityItem(new SecurityRequirement().addList(BEARER));
        api.addSecurityItem(new SecurityRequirement().addList(SESSION));
        api.getPaths().forEach((path, item) -> {
            var get = item.readOperationsMap().get(PathItem.HttpMethod.GET);
            if (get != null && !NEVER_ANONYMOUS.contains(path)) {
                get.setDescription((get.getDescription() == null ? "" : get.getDescription() + "\n\n")
                        + "Anyone may read this without logging in when the controller runs with "
                        + "qplab.security.anonymous-read.");
            }
        });
    }
}

package org.qplab.controller.security;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.server.DelegatingServerAuthenticationEntryPoint;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authentication.RedirectServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authentication.logout.DelegatingServerLogoutHandler;
import org.springframework.security.web.server.authentication.logout.SecurityContextServerLogoutHandler;
import org.springframework.security.web.server.authentication.logout.WebSessionServerLogoutHandler;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.security.web.server.csrf.CsrfWebFilter;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRequestAttributeHandler;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatcher;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import org.springframework.web.cors.CorsConfiguration;
import org.springframework.web.cors.reactive.CorsConfigurationSource;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import reactor.core.publisher.Mono;
import tools.jackson.databind.ObjectMapper;

/**
 * Who may do what (Spring Security for WebFlux). Browsers log in on /login and carry a session cookie
 * (HttpOnly, SameSite=Strict, Secure over HTTPS) and a CSRF token on every change; scripts send an API token as
 * {@code Authorization: Bearer} (no session, no CSRF: a browser cannot add that header cross-site without CORS,
 * which is refused). Reads need a viewer (or nobody, with qplab.security.anonymous-read); submits, cancels,
 * imports, baselines, recurring schedules and the triage of change points an operator; everything else that changes state (hosts, deploy, agents, users, deletes)
 * an admin. Requests naming a Host this controller does not answer to are refused (DNS rebinding), and so are
 * cross-origin requests. Agents authenticate on /agent with their own tokens (AgentGateway).
 *
 * <p>The pieces: {@link TokenLogin} (bearer tokens), {@link PasswordLogin} (the login form), {@link AccountSessions}
 * (a session follows its account), {@link SessionCsrfTokens} (CSRF tokens bound to the session),
 * {@link LoginThrottle} (what guessing costs), {@link BodyLimit} (413 on every path) and the
 * Content-Security-Policy below.
 */
@Configuration
@EnableWebFluxSecurity
public class SecurityConfiguration {

    private static final ServerWebExchangeMatcher API = ServerWebExchangeMatchers.pathMatchers("/api/**", "/v3/**",
            "/actuator/**");

    @Bean
    PasswordEncoder passwordEncoder() {
        return PasswordEncoderFactories.createDelegatingPasswordEncoder(); // bcrypt
    }

    /**
     * What a page may load: only this controller's own scripts, styles, images (and data: ones, the favicon),
     * fetches and forms; no inline script or style, no plugin, no frame around it (the dashboard builds its DOM
     * without innerHTML and sets styles through element.style; Chart.js draws on a canvas).
     */
    static final String CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; "
            + "img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
            + "form-action 'self'; frame-ancestors 'none'";

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http, SecurityProperties properties, TokenLogin tokens,
                                    PasswordLogin passwords, AccountSessions sessions, ObjectMapper json, AuditLog audit) {
        var unauthenticated = new DelegatingServerAuthenticationEntryPoint(
                new DelegatingServerAuthenticationEntryPoint.DelegateEntry(API, (exchange, e) ->
                        write(json, exchange, HttpStatus.UNAUTHORIZED, "log in first: send an API token as "
                                + "'Authorization: Bearer qplab_...' (make one on the dashboard or with POST /api/tokens)")));
        unauthenticated.setDefaultEntryPoint(new RedirectServerAuthenticationEntryPoint("/login"));
        ServerAccessDeniedHandler denied = (exchange, e) -> exchange.getPrincipal()
                .map(p -> p instanceof Authentication a ? Role.of(a.getAuthorities()) : null)
                .map(role -> "your role (" + role.id() + ") may not " + exchange.getRequest().getMethod() + " "
                        + exchange.getRequest().getPath().value() + ": " + needed(exchange))
                .defaultIfEmpty("forbidden: " + needed(exchange))
                .flatMap(message -> exchange.getPrincipal().map(java.security.Principal::getName).defaultIfEmpty("")
                        .doOnNext(actor -> audit.refused(exchange, actor.isEmpty() ? null : actor))
                        .then(write(json, exchange, HttpStatus.FORBIDDEN, message)));

        // browsers: the CSRF token of the session (SessionCsrfTokens), mirrored in a cookie the dashboard's script
        // reads and sends back as X-XSRF-TOKEN; only where a session cookie could carry the request, and on the
        // login form: a request with neither a session nor a token is simply not logged in, and hears 401
        ServerWebExchangeMatcher csrfNeeded = exchange -> CsrfWebFilter.DEFAULT_CSRF_MATCHER.matches(exchange)
                .flatMap(m -> m.isMatch() && TokenLogin.bearerToken(exchange) == null
                        && (exchange.getRequest().getCookies().containsKey("SESSION")
                            || exchange.getRequest().getPath().value().equals("/login")
                            || exchange.getRequest().getPath().value().equals("/logout"))
                        ? ServerWebExchangeMatcher.MatchResult.match() : ServerWebExchangeMatcher.MatchResult.notMatch());
        SessionCsrfTokens csrfTokens = new SessionCsrfTokens();

        return http
                .authorizeExchange(auth -> {
                    auth.pathMatchers("/agent").permitAll()
                            .pathMatchers("/actuator/health", "/actuator/health/**", "/login", "/logout").permitAll()
                            // what the login page needs; no data
                            .pathMatchers(HttpMethod.GET, "/css/**", "/js/login.js").permitAll()
                            .pathMatchers(HttpMethod.GET, "/api/hosts/*/logs").hasRole("ADMIN")
                            .pathMatchers("/api/users", "/api/users/**", "/api/audit", "/api/audit/**").hasRole("ADMIN")
                            .pathMatchers("/api/me", "/api/me/**", "/api/tokens", "/api/tokens/**").authenticated()
                            .pathMatchers(HttpMethod.POST, "/api/experiments/validate").hasRole("VIEWER")
                            .pathMatchers(HttpMethod.POST, "/api/experiments", "/api/experiments/*/cancel",
                                    "/api/import/**", "/api/schedules", "/api/schedules/*/enable",
                                    "/api/schedules/*/disable", "/api/changes/*/confirm", "/api/changes/*/dismiss")
                            .hasRole("OPERATOR")
                            .pathMatchers(HttpMethod.PUT, "/api/runs/*/baseline").hasRole("OPERATOR")
                            .pathMatchers(HttpMethod.DELETE, "/api/runs/*/baseline").hasRole("OPERATOR")
                            // an experiment's owner may delete it once it ended, an admin any: checked where it is deleted
                            .pathMatchers(HttpMethod.DELETE, "/api/experiments/*").hasRole("OPERATOR")
                            // a schedule's owner may delete it, an admin any: checked where it is deleted
                            .pathMatchers(HttpMethod.DELETE, "/api/schedules/*").hasRole("OPERATOR");
                    if (properties.anonymousRead()) {
                        auth.pathMatchers(HttpMethod.GET, "/**").permitAll();
                    } else {
                        auth.pathMatchers(HttpMethod.GET, "/**").hasRole("VIEWER");
                    }
                    auth.anyExchange().hasRole("ADMIN");
                })
                // scripts: a bearer token per request; browsers: the login form, then a session that follows its account
                .addFilterAt(tokens.filter(json), SecurityWebFiltersOrder.AUTHENTICATION)
                .addFilterAt(passwords.filter(sessions, csrfTokens, audit, json), SecurityWebFiltersOrder.FORM_LOGIN)
                .securityContextRepository(sessions)
                // no session for someone who is not logged in: after a login the dashboard starts at its home page
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .logout(logout -> logout.logoutHandler(new DelegatingServerLogoutHandler(
                        new SecurityContextServerLogoutHandler(), new WebSessionServerLogoutHandler())))
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .exceptionHandling(e -> e.authenticationEntryPoint(unauthenticated).accessDeniedHandler(denied))
                .csrf(csrf -> csrf.csrfTokenRepository(csrfTokens)
                        .csrfTokenRequestHandler(new ServerCsrfTokenRequestAttributeHandler())
                        .requireCsrfProtectionMatcher(csrfNeeded)
                        .accessDeniedHandler((exchange, e) -> write(json, exchange, HttpStatus.FORBIDDEN,
                                "CSRF token missing or wrong: reload the page (scripts: use an API token)")))
                .cors(cors -> cors.configurationSource(noCrossOrigin()))
                // same-origin, not no-referrer: under no-referrer browsers send "Origin: null" on their own form posts
                // and fetches, which the origin check above would refuse
                .headers(headers -> headers
                        .contentSecurityPolicy(csp -> csp.policyDirectives(CONTENT_SECURITY_POLICY))
                        .referrerPolicy(referrer -> referrer.policy(
                        org.springframework.security.web.server.header.ReferrerPolicyServerHttpHeadersWriter.ReferrerPolicy.SAME_ORIGIN)))
                .build();
    }

    /** GET /login: the login page (web-ui's login.html). */
    @Bean
    org.springframework.web.reactive.function.server.RouterFunction<org.springframework.web.reactive.function.server.ServerResponse>
            loginPage() {
        var page = new org.springframework.core.io.ClassPathResource("META-INF/resources/login.html");
        return org.springframework.web.reactive.function.server.RouterFunctions.route(
                org.springframework.web.reactive.function.server.RequestPredicates.GET("/login"),
                request -> org.springframework.web.reactive.function.server.ServerResponse.ok()
                        .contentType(MediaType.TEXT_HTML).bodyValue(page));
    }

    /** Every cross-origin request is refused (a same-origin one is not a CORS request and passes). */
    private static CorsConfigurationSource noCrossOrigin() {
        CorsConfiguration none = new CorsConfiguration();
        none.setAllowedOrigins(List.of());
        return exchange -> none;
    }

    /** Makes the CSRF cookie exist before the first change, so the dashboard's script can read it. */
    @Bean
    WebFilter csrfCookie() {
        return (exchange, chain) -> exchange.<Mono<CsrfToken>>getAttributeOrDefault(CsrfToken.class.getName(), Mono.empty())
                .then(chain.filter(exchange));
    }

    /** Only requests for a Host this controller answers to (HostNames); other checks as Spring Security's. */
    @Bean
    ServerWebExchangeFirewall firewall(HostNames hosts) {
        StrictServerWebExchangeFirewall firewall = new StrictServerWebExchangeFirewall();
        firewall.setAllowedHostnames(hosts::allowed);
        // a NUL in a path variable reaches the API, which refuses it naming the variable (api/RequestText)
        firewall.setAllowNull(true);
        return firewall;
    }

    @Bean
    ServerExchangeRejectedHandler rejected(ObjectMapper json) {
        return (exchange, e) -> write(json, exchange, HttpStatus.BAD_REQUEST, "request refused: " + e.getMessage()
                + (String.valueOf(e.getMessage()).contains("domain") ? ". A Host this controller does not know is refused "
                + "against DNS rebinding: add the name to qplab.security.allowed-hosts" : ""));
    }

    private static String needed(ServerWebExchange exchange) {
        String path = exchange.getRequest().getPath().value();
        HttpMethod method = exchange.getRequest().getMethod();
        if (HttpMethod.GET.equals(method) && !path.startsWith("/api/users") && !path.startsWith("/api/audit")
                && !path.endsWith("/logs")) {
            return "needs a viewer";
        }
        if (path.startsWith("/api/experiments") || path.startsWith("/api/import") || path.startsWith("/api/schedules")
                || path.startsWith("/api/changes") || path.endsWith("/baseline")) {
            return "needs an operator";
        }
        return "needs an admin";
    }

    static Mono<Void> write(ObjectMapper json, ServerWebExchange exchange, HttpStatus status, String error) {
        var response = exchange.getResponse();
        if (response.isCommitted()) {
            return Mono.empty();
        }
        response.setStatusCode(status);
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        byte[] body = json.writeValueAsString(Map.of("error", error)).getBytes(StandardCharsets.UTF_8);
        DataBuffer buffer = response.bufferFactory().wrap(body);
        return response.writeWith(Mono.just(buffer));
    }
}

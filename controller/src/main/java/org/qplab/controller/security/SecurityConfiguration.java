package org.qplab.controller.security;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.qplab.controller.database.Jdbc;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.web.server.SecurityWebFiltersOrder;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.ReactiveUserDetailsService;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.server.DelegatingServerAuthenticationEntryPoint;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.authentication.AuthenticationWebFilter;
import org.springframework.security.web.server.authentication.RedirectServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.authentication.ServerAuthenticationEntryPointFailureHandler;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.csrf.CookieServerCsrfTokenRepository;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.security.web.server.csrf.CsrfWebFilter;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRequestAttributeHandler;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.firewall.ServerWebExchangeFirewall;
import org.springframework.security.web.server.firewall.StrictServerWebExchangeFirewall;
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
 * imports and baselines an operator; everything else that changes state (hosts, deploy, agents, users, deletes)
 * an admin. Requests naming a Host this controller does not answer to are refused (DNS rebinding), and so are
 * cross-origin requests. Agents authenticate on /agent with their own tokens (AgentGateway).
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

    @Bean
    ReactiveUserDetailsService accountDetails(Accounts accounts, Jdbc jdbc) {
        return name -> jdbc.call(() -> accounts.find(name).map(a -> User.withUsername(a.name())
                .password(a.passwordHash()).authorities(a.role().authorities()).build()).orElse(null));
    }

    @Bean
    SecurityWebFilterChain security(ServerHttpSecurity http, SecurityProperties properties, ApiTokens tokens, Jdbc jdbc,
                                    ObjectMapper json, AuditLog audit) {
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

        // scripts: a bearer API token, checked per request (remembered a few seconds), nothing kept in a session
        ReactiveAuthenticationManager byToken = authentication -> Mono.justOrEmpty(tokens.remembered(
                        (String) authentication.getCredentials()))
                .switchIfEmpty(jdbc.call(() -> tokens.holder((String) authentication.getCredentials()).orElse(null)))
                .map(h -> (Authentication) UsernamePasswordAuthenticationToken.authenticated(h.account(), null,
                        h.role().authorities()))
                .switchIfEmpty(Mono.error(() -> new org.springframework.security.authentication.BadCredentialsException(
                        "this API token is unknown or revoked")));
        ServerAuthenticationConverter bearer = exchange -> Mono.justOrEmpty(bearerToken(exchange))
                .map(token -> UsernamePasswordAuthenticationToken.unauthenticated("token", token));
        AuthenticationWebFilter tokenFilter = new AuthenticationWebFilter(byToken);
        tokenFilter.setServerAuthenticationConverter(bearer);
        tokenFilter.setSecurityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        tokenFilter.setAuthenticationFailureHandler(new ServerAuthenticationEntryPointFailureHandler((exchange, e) ->
                write(json, exchange, HttpStatus.UNAUTHORIZED, e.getMessage())));

        // browsers: the CSRF token in a cookie the dashboard's script reads and sends back as X-XSRF-TOKEN
        // (only where a session cookie could carry the request, and on the login form: a request with neither a
        // session nor a token is simply not logged in, and hears 401)
        ServerWebExchangeMatcher csrfNeeded = exchange -> CsrfWebFilter.DEFAULT_CSRF_MATCHER.matches(exchange)
                .flatMap(m -> m.isMatch() && bearerToken(exchange) == null
                        && (exchange.getRequest().getCookies().containsKey("SESSION")
                            || exchange.getRequest().getPath().value().equals("/login")
                            || exchange.getRequest().getPath().value().equals("/logout"))
                        ? ServerWebExchangeMatcher.MatchResult.match() : ServerWebExchangeMatcher.MatchResult.notMatch());

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
                                    "/api/import/**").hasRole("OPERATOR")
                            .pathMatchers(HttpMethod.PUT, "/api/runs/*/baseline").hasRole("OPERATOR")
                            .pathMatchers(HttpMethod.DELETE, "/api/runs/*/baseline").hasRole("OPERATOR")
                            // an experiment's owner may delete it once it ended, an admin any: checked where it is deleted
                            .pathMatchers(HttpMethod.DELETE, "/api/experiments/*").hasRole("OPERATOR");
                    if (properties.anonymousRead()) {
                        auth.pathMatchers(HttpMethod.GET, "/**").permitAll();
                    } else {
                        auth.pathMatchers(HttpMethod.GET, "/**").hasRole("VIEWER");
                    }
                    auth.anyExchange().hasRole("ADMIN");
                })
                .addFilterAt(tokenFilter, SecurityWebFiltersOrder.AUTHENTICATION)
                .formLogin(login -> login.loginPage("/login") // the dashboard's own page (web-ui login.html)
                        .authenticationSuccessHandler(audit.loginSucceeded())
                        .authenticationFailureHandler(audit.loginFailed()))
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .exceptionHandling(e -> e.authenticationEntryPoint(unauthenticated).accessDeniedHandler(denied))
                .csrf(csrf -> csrf.csrfTokenRepository(CookieServerCsrfTokenRepository.withHttpOnlyFalse())
                        .csrfTokenRequestHandler(new ServerCsrfTokenRequestAttributeHandler())
                        .requireCsrfProtectionMatcher(csrfNeeded)
                        .accessDeniedHandler((exchange, e) -> write(json, exchange, HttpStatus.FORBIDDEN,
                                "CSRF token missing or wrong: reload the page (scripts: use an API token)")))
                .cors(cors -> cors.configurationSource(noCrossOrigin()))
                // same-origin, not no-referrer: under no-referrer browsers send "Origin: null" on their own form posts
                // and fetches, which the origin check above would refuse
                .headers(headers -> headers.referrerPolicy(referrer -> referrer.policy(
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
        if (path.startsWith("/api/experiments") || path.startsWith("/api/import") || path.endsWith("/baseline")) {
            return "needs an operator";
        }
        return "needs an admin";
    }

    static String bearerToken(ServerWebExchange exchange) {
        String header = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).trim() : null;
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

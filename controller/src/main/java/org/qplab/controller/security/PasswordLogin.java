package org.qplab.controller.security;

import org.qplab.controller.database.Jdbc;
import org.springframework.http.HttpMethod;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.ReactiveAuthenticationManager;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.web.server.WebFilterExchange;
import org.springframework.security.web.server.authentication.AuthenticationWebFilter;
import org.springframework.security.web.server.authentication.RedirectServerAuthenticationFailureHandler;
import org.springframework.security.web.server.authentication.RedirectServerAuthenticationSuccessHandler;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.util.matcher.ServerWebExchangeMatchers;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The login form (POST /login: username, password, _csrf). Each try is throttled per account and per address
 * ({@link LoginThrottle}: 429 with Retry-After, nothing checked); a name that is no account costs the same bcrypt
 * as a wrong password ({@link Passwords}). A login starts a session ({@link AccountSessions}: it carries the
 * password's stamp) with its own CSRF token ({@link SessionCsrfTokens}); failures are audited per address and
 * minute ({@link AuditLog#loginFailed}).
 */
@Component
public class PasswordLogin implements ReactiveAuthenticationManager {

    /** Where a try came from (the authentication's details). */
    private record Form(String address) {}

    private final Accounts accounts;
    private final Passwords passwords;
    private final LoginThrottle throttle;
    private final Jdbc jdbc;

    public PasswordLogin(Accounts accounts, Passwords passwords, LoginThrottle throttle, Jdbc jdbc) {
        this.accounts = accounts;
        this.passwords = passwords;
        this.throttle = throttle;
        this.jdbc = jdbc;
    }

    @Override
    public Mono<Authentication> authenticate(Authentication attempt) {
        String address = attempt.getDetails() instanceof Form form ? form.address() : "unknown";
        return verified(attempt.getName(), (String) attempt.getCredentials(), address)
                .map(found -> AccountSessions.authenticated(found.name(), found.role(), Passwords.stamp(found.passwordHash())))
                .switchIfEmpty(Mono.error(() -> new BadCredentialsException("wrong account or password")));
    }

    /**
     * Checks a password the caller already holds a session or token for (changing it needs the current one):
     * throttled like a login, so that a stolen session is no way to guess the password itself.
     */
    Mono<Boolean> check(String name, String password, String address) {
        return verified(name, password, address).hasElement();
    }

    /** The account, when the password is its own; empty when not (or no such account); Throttled while waiting. */
    private Mono<Accounts.Stored> verified(String name, String password, String address) {
        return Mono.fromCallable(() -> throttle.begin(name, address))
                .flatMap(counted -> jdbc.call(() -> accounts.find(name)).flatMap(account -> passwords
                        .matches(account.map(Accounts.Stored::passwordHash).orElse(null), password)
                        .filter(Boolean::booleanValue)
                        .map(right -> {
                            counted.succeeded();
                            return account.orElseThrow();
                        })));
    }

    /** The filter that answers POST /login. */
    AuthenticationWebFilter filter(AccountSessions sessions, SessionCsrfTokens csrf, AuditLog audit,
                                   tools.jackson.databind.ObjectMapper json) {
        AuthenticationWebFilter filter = new AuthenticationWebFilter(this);
        filter.setRequiresAuthenticationMatcher(ServerWebExchangeMatchers.pathMatchers(HttpMethod.POST, "/login"));
        filter.setServerAuthenticationConverter(form());
        filter.setSecurityContextRepository(sessions);
        var home = new RedirectServerAuthenticationSuccessHandler("/");
        filter.setAuthenticationSuccessHandler((exchange, authentication) -> {
            audit.record(authentication.getName(), "login", authentication.getName(), 200,
                    ClientAddress.of(exchange.getExchange()));
            return csrf.issue(exchange.getExchange()).then(home.onAuthenticationSuccess(exchange, authentication));
        });
        var again = new RedirectServerAuthenticationFailureHandler("/login?error");
        filter.setAuthenticationFailureHandler((WebFilterExchange exchange, AuthenticationException e) -> {
            String address = ClientAddress.of(exchange.getExchange());
            if (e instanceof Throttled throttled) {
                audit.loginFailed(address, null, true);
                exchange.getExchange().getResponse().getHeaders().set("Retry-After",
                        String.valueOf(throttled.retryAfterSeconds()));
                return SecurityConfiguration.write(json, exchange.getExchange(),
                        org.springframework.http.HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
            }
            return exchange.getExchange().getFormData()
                    .doOnNext(form -> audit.loginFailed(address, form.getFirst("username"), false))
                    .then(again.onAuthenticationFailure(exchange, e));
        });
        return filter;
    }

    private static ServerAuthenticationConverter form() {
        return exchange -> exchange.getFormData().map(form -> {
            var attempt = UsernamePasswordAuthenticationToken.unauthenticated(
                    java.util.Objects.requireNonNullElse(form.getFirst("username"), ""), form.getFirst("password"));
            attempt.setDetails(new Form(ClientAddress.of(exchange)));
            return attempt;
        });
    }
}

package org.qplab.controller.security;

import org.qplab.controller.database.Jdbc;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.web.server.authentication.AuthenticationWebFilter;
import org.springframework.security.web.server.authentication.ServerAuthenticationConverter;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import tools.jackson.databind.ObjectMapper;

/**
 * Scripts: {@code Authorization: Bearer qplab_...}, checked on every request (a valid token is remembered a few
 * seconds, {@link ApiTokens}), nothing kept in a session. A valid token is never throttled; an unknown or revoked
 * one counts against its address ({@link LoginThrottle}), and once that address waits, every further unknown token
 * from it is 429 with Retry-After.
 */
@Component
public class TokenLogin {

    private record From(String address) {}

    private final ApiTokens tokens;
    private final LoginThrottle throttle;
    private final Jdbc jdbc;

    public TokenLogin(ApiTokens tokens, LoginThrottle throttle, Jdbc jdbc) {
        this.tokens = tokens;
        this.throttle = throttle;
        this.jdbc = jdbc;
    }

    AuthenticationWebFilter filter(ObjectMapper json) {
        AuthenticationWebFilter filter = new AuthenticationWebFilter(this::authenticate);
        ServerAuthenticationConverter bearer = exchange -> Mono.justOrEmpty(bearerToken(exchange)).map(token -> {
            var attempt = UsernamePasswordAuthenticationToken.unauthenticated("token", token);
            attempt.setDetails(new From(ClientAddress.of(exchange)));
            return attempt;
        });
        filter.setServerAuthenticationConverter(bearer);
        filter.setSecurityContextRepository(NoOpServerSecurityContextRepository.getInstance());
        filter.setAuthenticationFailureHandler((exchange, e) -> {
            if (e instanceof Throttled throttled) {
                exchange.getExchange().getResponse().getHeaders().set(HttpHeaders.RETRY_AFTER,
                        String.valueOf(throttled.retryAfterSeconds()));
                return SecurityConfiguration.write(json, exchange.getExchange(), HttpStatus.TOO_MANY_REQUESTS, e.getMessage());
            }
            return SecurityConfiguration.write(json, exchange.getExchange(), HttpStatus.UNAUTHORIZED, e.getMessage());
        });
        return filter;
    }

    private Mono<Authentication> authenticate(Authentication attempt) {
        String token = (String) attempt.getCredentials();
        String address = attempt.getDetails() instanceof From from ? from.address() : "unknown";
        return Mono.justOrEmpty(tokens.remembered(token))
                .switchIfEmpty(jdbc.call(() -> tokens.holder(token)).flatMap(Mono::justOrEmpty))
                .map(h -> (Authentication) UsernamePasswordAuthenticationToken.authenticated(h.account(), null,
                        h.role().authorities()))
                .switchIfEmpty(Mono.fromCallable(() -> {
                    throttle.tokenFailed(address);
                    throw new BadCredentialsException("this API token is unknown or revoked");
                }));
    }

    static String bearerToken(ServerWebExchange exchange) {
        String header = exchange.getRequest().getHeaders().getFirst(HttpHeaders.AUTHORIZATION);
        return header != null && header.regionMatches(true, 0, "Bearer ", 0, 7) ? header.substring(7).trim() : null;
    }
}

package org.qplab.controller.security;

import org.springframework.http.HttpCookie;
import org.springframework.security.web.server.csrf.CookieServerCsrfTokenRepository;
import org.springframework.security.web.server.csrf.CsrfToken;
import org.springframework.security.web.server.csrf.ServerCsrfTokenRepository;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebSession;
import reactor.core.publisher.Mono;

/**
 * CSRF tokens bound to the session. A logged-in session keeps its token (made when it logged in); the
 * XSRF-TOKEN cookie only mirrors it for the dashboard's script, which sends it back as X-XSRF-TOKEN, and a token
 * of any other session (a cookie another site managed to set included) is refused. Before there is a session,
 * the login form alone needs a token: that one is the cookie itself (double submit), so that an anonymous visitor
 * makes no session on the controller. Unlike Spring's WebSessionServerCsrfTokenRepository, saving a token does not
 * change the session's id (the login already did): the dashboard's requests in flight keep their session.
 */
final class SessionCsrfTokens implements ServerCsrfTokenRepository {

    private static final String ATTRIBUTE = SessionCsrfTokens.class.getName() + ".token";

    private final CookieServerCsrfTokenRepository cookie = CookieServerCsrfTokenRepository.withHttpOnlyFalse();

    @Override
    public Mono<CsrfToken> generateToken(ServerWebExchange exchange) {
        return cookie.generateToken(exchange);
    }

    @Override
    public Mono<Void> saveToken(ServerWebExchange exchange, CsrfToken token) {
        return exchange.getSession().flatMap(session -> {
            if (!session.isStarted()) {
                return cookie.saveToken(exchange, token);
            }
            if (token == null) {
                session.getAttributes().remove(ATTRIBUTE);
                return cookie.saveToken(exchange, null);
            }
            // two first requests of a session at once: both keep the first token saved
            CsrfToken kept = (CsrfToken) session.getAttributes().putIfAbsent(ATTRIBUTE, token);
            return cookie.saveToken(exchange, kept == null ? token : kept);
        });
    }

    @Override
    public Mono<CsrfToken> loadToken(ServerWebExchange exchange) {
        return exchange.getSession().flatMap(session -> session.isStarted() ? fromSession(exchange, session)
                : cookie.loadToken(exchange));
    }

    /** A new token for a session that just logged in (it replaces the one the login form carried). */
    Mono<Void> issue(ServerWebExchange exchange) {
        return exchange.getSession().doOnNext(session -> session.getAttributes().remove(ATTRIBUTE))
                .then(generateToken(exchange)).flatMap(token -> saveToken(exchange, token));
    }

    private Mono<CsrfToken> fromSession(ServerWebExchange exchange, WebSession session) {
        CsrfToken token = session.getAttribute(ATTRIBUTE);
        if (token == null) {
            return Mono.empty();
        }
        HttpCookie sent = exchange.getRequest().getCookies().getFirst("XSRF-TOKEN");
        return sent != null && token.getToken().equals(sent.getValue()) ? Mono.just(token)
                : cookie.saveToken(exchange, token).thenReturn(token); // the browser lost its copy: give it again
    }
}

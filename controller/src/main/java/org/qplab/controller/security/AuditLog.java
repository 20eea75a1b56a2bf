package org.qplab.controller.security;

import java.security.Principal;
import java.time.OffsetDateTime;
import java.util.List;
import org.qplab.controller.database.Jdbc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.Ordered;
import org.springframework.http.HttpMethod;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import reactor.core.publisher.Mono;

/**
 * Who did what, and when (table audit_event): every request that may change state (any method but GET, HEAD and
 * OPTIONS) under /api/ with who made it and the status answered, those its role may not make included
 * ({@link #refused}), and every login; failed logins as one row per address and minute ({@link #loginFailed}). Written
 * after the answer, off the event loop; a failed write is logged, never the caller's problem.
 */
@Component
public class AuditLog implements WebFilter, Ordered {

    /** One event as listed for admins. */
    public record Event(long id, OffsetDateTime at, String actor, String action, String target, Integer status,
                        String remote, int times) {}

    private static final Logger log = LoggerFactory.getLogger(AuditLog.class);
    private final JdbcClient jdbc;
    private final Jdbc blocking;

    public AuditLog(JdbcClient jdbc, Jdbc blocking) {
        this.jdbc = jdbc;
        this.blocking = blocking;
    }

    @Override
    public int getOrder() {
        return 0; // after Spring Security's chain (-100), which knows the caller; it records what it refuses itself
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        HttpMethod method = exchange.getRequest().getMethod();
        String path = exchange.getRequest().getPath().value();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method) || HttpMethod.OPTIONS.equals(method)
                || !path.startsWith("/api/")) {
            return chain.filter(exchange);
        }
        return exchange.getPrincipal().map(Principal::getName).defaultIfEmpty("")
                .flatMap(actor -> chain.filter(exchange).doFinally(signal -> record(actor.isEmpty() ? null : actor,
                        method + " " + path, target(exchange), status(exchange), remote(exchange))));
    }

    /** Records one event (blocking work on the database scheduler; never fails the caller). */
    public void record(String actor, String action, String target, Integer status, String remote) {
        blocking.run(() -> jdbc.sql("INSERT INTO audit_event (actor, action, target, status, remote) VALUES (?, ?, ?, ?, ?)")
                        .params(actor, action, target, status, remote).update())
                .subscribe(v -> { }, e -> log.warn("could not record audit event {} by {}: {}", action, actor, e.toString()));
    }

    public List<Event> recent(int limit) {
        return jdbc.sql("SELECT id, at, actor, action, target, status, remote, times FROM audit_event ORDER BY id DESC LIMIT ?")
                .param(limit).query(Event.class).list();
    }

    /**
     * A failed (or throttled) login, counted into one row per address, minute and kind: anonymous callers cannot
     * grow the table faster than that. The row's target lists the account names tried (those that could be one),
     * up to about 200 characters; {@code times} counts the tries.
     */
    void loginFailed(String address, String name, boolean throttled) {
        String tried = name == null ? "" : name.matches(Accounts.NAME) ? name : "(not an account name)";
        String remote = address == null ? "unknown" : address;
        blocking.run(() -> jdbc.sql("""
                        INSERT INTO audit_event (at, actor, action, target, status, remote, times)
                        VALUES (date_trunc('minute', now()), NULL, ?, ?, ?, ?, 1)
                        ON CONFLICT (action, remote, at)
                            WHERE actor IS NULL AND action IN ('failed logins', 'throttled logins')
                        DO UPDATE SET times = audit_event.times + 1,
                            target = CASE WHEN EXCLUDED.target = '' OR length(audit_event.target) > 200
                                            OR position(',' || EXCLUDED.target || ',' IN ',' || audit_event.target || ',') > 0
                                          THEN audit_event.target
                                          WHEN audit_event.target = '' THEN EXCLUDED.target
                                          ELSE audit_event.target || ',' || EXCLUDED.target END""")
                        .params(throttled ? "throttled logins" : "failed logins", tried, throttled ? 429 : 401, remote).update())
                .subscribe(v -> { }, e -> log.warn("could not record a failed login from {}: {}", remote, e.toString()));
    }

    /** A change refused for want of a role (403) or a CSRF token. */
    void refused(ServerWebExchange exchange, String actor) {
        HttpMethod method = exchange.getRequest().getMethod();
        if (HttpMethod.GET.equals(method) || HttpMethod.HEAD.equals(method)) {
            return;
        }
        record(actor, exchange.getRequest().getMethod() + " " + exchange.getRequest().getPath().value(), target(exchange),
                403, remote(exchange));
    }

    private static String target(ServerWebExchange exchange) {
        String query = exchange.getRequest().getURI().getRawQuery();
        String path = exchange.getRequest().getPath().value();
        return query == null ? path : path + "?" + query;
    }

    private static Integer status(ServerWebExchange exchange) {
        var code = exchange.getResponse().getStatusCode();
        return code == null ? 200 : code.value();
    }

    private static String remote(ServerWebExchange exchange) {
        var address = exchange.getRequest().getRemoteAddress();
        return address == null ? null : address.getAddress().getHostAddress();
    }
}

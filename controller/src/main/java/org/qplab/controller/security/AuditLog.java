package org.qplab.controller.security;

import java.security.Principal;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
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
 * OPTIONS, and but the read-only POSTs of {@link #READ_ONLY}) under /api/ with who made it and the status answered,
 * those its role may not make included ({@link #refused}), and every login; failed logins as one row per address and
 * minute ({@link #loginFailed}). Written after the answer, off the event loop; a failed write is logged, never the
 * caller's problem. Read by admins a page at a time, newest first, filtered ({@link #page}).
 */
@Component
public class AuditLog implements WebFilter, Ordered {

    /** One event as listed for admins. */
    public record Event(long id, OffsetDateTime at, String actor, String action, String target, Integer status,
                        String remote, int times) {}

    /**
     * A page of the log: at most limit events recorded before the event with id before (the cursor: the last id of
     * the page before; null for the newest), by actor (the account, exactly), action (a part of it, any case), status
     * (an HTTP status, or a class: 4xx), and time (since inclusive, until exclusive); null is "any".
     */
    public record Query(int limit, Long before, String actor, String action, Integer status, Integer statusClass,
                        OffsetDateTime since, OffsetDateTime until) {}

    /**
     * POSTs that change nothing (a matrix checked, not stored): not audited, as GETs are not. Method and path as
     * the request names them.
     */
    static final Set<String> READ_ONLY = Set.of("POST /api/experiments/validate");

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
        if (!changes(method, path) || !path.startsWith("/api/")) {
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

    /** Whether a request may change state, and so is audited: not a GET, HEAD or OPTIONS, nor a read-only POST. */
    static boolean changes(HttpMethod method, String path) {
        return !HttpMethod.GET.equals(method) && !HttpMethod.HEAD.equals(method) && !HttpMethod.OPTIONS.equals(method)
                && !READ_ONLY.contains(method + " " + path);
    }

    /** A page of events, newest first (by id: the order they were recorded in, which never changes). */
    public List<Event> page(Query query) {
        StringBuilder sql = new StringBuilder("SELECT id, at, actor, action, target, status, remote, times FROM audit_event "
                + "WHERE true");
        List<Object> params = new ArrayList<>();
        if (query.before() != null) {
            sql.append(" AND id < ?");
            params.add(query.before());
        }
        if (query.actor() != null) {
            sql.append(" AND actor = ?");
            params.add(query.actor());
        }
        if (query.action() != null) {
            sql.append(" AND action ILIKE ? ESCAPE '\\'");
            params.add("%" + query.action().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%");
        }
        if (query.status() != null) {
            sql.append(" AND status = ?");
            params.add(query.status());
        }
        if (query.statusClass() != null) {
            sql.append(" AND status BETWEEN ? AND ?");
            params.add(query.statusClass() * 100);
            params.add(query.statusClass() * 100 + 99);
        }
        if (query.since() != null) {
            sql.append(" AND at >= ?");
            params.add(query.since());
        }
        if (query.until() != null) {
            sql.append(" AND at < ?");
            params.add(query.until());
        }
        sql.append(" ORDER BY id DESC LIMIT ?");
        params.add(query.limit());
        return jdbc.sql(sql.toString()).params(params).query(Event.class).list();
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
        if (!changes(exchange.getRequest().getMethod(), exchange.getRequest().getPath().value())) {
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

package org.qplab.controller.security;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.controller.database.Jdbc;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.SecurityContext;
import org.springframework.security.core.context.SecurityContextImpl;
import org.springframework.security.web.server.context.ServerSecurityContextRepository;
import org.springframework.security.web.server.context.WebSessionServerSecurityContextRepository;
import org.springframework.stereotype.Component;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebSession;
import reactor.core.publisher.Mono;

/**
 * Browser sessions that follow their account. A session keeps who logged in and a stamp of the password they
 * logged in with ({@link Passwords#stamp}); every request looks the account up again (remembered at most
 * {@link #REMEMBER_NANOS}, forgotten at once when this controller changes the account): a deleted account, or one
 * whose password changed since (or deleted and made again), ends the session (401), and the role is the one the
 * account has now. The lookup is one map read on the event loop; a query on the database scheduler once per
 * account and 10 s.
 */
@Component
public class AccountSessions implements ServerSecurityContextRepository {

    /** The session's stamp of its password, kept as the authentication's details. */
    record Stamp(String value) {}

    private record Current(Role role, String stamp) {}

    private record Remembered(Optional<Current> account, long until) {}

    static final long REMEMBER_NANOS = 10_000_000_000L;
    private static final String LOADED = AccountSessions.class.getName() + ".loaded";

    private final WebSessionServerSecurityContextRepository sessions = new WebSessionServerSecurityContextRepository();
    private final Map<String, Remembered> accounts = new ConcurrentHashMap<>();
    /** Counts forget calls: a lookup that raced with a change is not remembered. */
    private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();
    private final Accounts store;
    private final Jdbc jdbc;

    public AccountSessions(Accounts store, Jdbc jdbc) {
        this.store = store;
        this.jdbc = jdbc;
    }

    /** An authentication for a session of this account, with its role and password stamp. */
    static Authentication authenticated(String name, Role role, String stamp) {
        var authentication = UsernamePasswordAuthenticationToken.authenticated(name, null, role.authorities());
        authentication.setDetails(new Stamp(stamp));
        return authentication;
    }

    @Override
    public Mono<Void> save(ServerWebExchange exchange, SecurityContext context) {
        exchange.getAttributes().remove(LOADED);
        return sessions.save(exchange, context);
    }

    @Override
    public Mono<SecurityContext> load(ServerWebExchange exchange) {
        // several filters ask for the context of one request: one lookup serves them all
        @SuppressWarnings("unchecked")
        Mono<SecurityContext> loaded = (Mono<SecurityContext>) exchange.getAttributes()
                .computeIfAbsent(LOADED, k -> sessions.load(exchange).flatMap(context -> follow(exchange, context)).cache());
        return loaded;
    }

    /** Forgets what was looked up about the account (it was just deleted, or its role or password changed). */
    public void forget(String name) {
        changes.incrementAndGet();
        accounts.remove(name);
    }

    /**
     * After the account's own password change through this session: the session carries the new stamp, so that it
     * stays logged in while every other session of the account ends.
     */
    Mono<Void> renew(ServerWebExchange exchange, String name, String stamp) {
        return sessions.load(exchange)
                .filter(context -> context.getAuthentication() != null && name.equals(context.getAuthentication().getName()))
                .flatMap(context -> exchange.getSession().doOnNext(session -> session.getAttributes().put(
                        WebSessionServerSecurityContextRepository.DEFAULT_SPRING_SECURITY_CONTEXT_ATTR_NAME,
                        new SecurityContextImpl(authenticated(name, Role.of(context.getAuthentication().getAuthorities()),
                                stamp)))))
                .then();
    }

    private Mono<SecurityContext> follow(ServerWebExchange exchange, SecurityContext context) {
        Authentication authentication = context.getAuthentication();
        if (authentication == null || !(authentication.getDetails() instanceof Stamp stamp)) {
            return end(exchange);
        }
        String name = authentication.getName();
        return current(name).flatMap(account -> account.isPresent() && account.get().stamp().equals(stamp.value())
                ? Mono.<SecurityContext>just(new SecurityContextImpl(authenticated(name, account.get().role(), stamp.value())))
                : end(exchange));
    }

    private Mono<Optional<Current>> current(String name) {
        Remembered remembered = accounts.get(name);
        long now = System.nanoTime();
        if (remembered != null && now - remembered.until() < 0) {
            return Mono.just(remembered.account());
        }
        long before = changes.get();
        return jdbc.call(() -> store.find(name).map(a -> new Current(a.role(), Passwords.stamp(a.passwordHash()))))
                .doOnNext(account -> {
                    if (changes.get() == before) {
                        accounts.put(name, new Remembered(account, now + REMEMBER_NANOS));
                    }
                });
    }

    private static Mono<SecurityContext> end(ServerWebExchange exchange) {
        return exchange.getSession().flatMap(WebSession::invalidate).then(Mono.empty());
    }
}

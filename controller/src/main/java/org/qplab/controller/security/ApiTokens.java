package org.qplab.controller.security;

import java.security.SecureRandom;
import java.time.OffsetDateTime;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * API tokens for scripts (table api_token). A token is 32 random bytes, shown once when it is made; only its
 * SHA-256 is stored. A token found valid is remembered for a few seconds, so a script's requests cost no query
 * each; a revocation forgets them all at once. Blocking.
 */
@Component
public class ApiTokens {

    /** A token as listed (never the token itself). */
    public record Token(long id, String name, OffsetDateTime createdAt, OffsetDateTime revokedAt) {}

    /** A token just made: the only time its value is seen. */
    public record Issued(long id, String name, String token) {}

    /** Whose a valid token is, and that account's role. */
    record Holder(String account, Role role) {}

    private record Remembered(Holder holder, long until) {}

    static final String PREFIX = "qplab_";
    private static final long REMEMBER_NANOS = 10_000_000_000L;

    private final JdbcClient jdbc;
    private final SecureRandom random = new SecureRandom();
    private final Map<String, Remembered> valid = new ConcurrentHashMap<>();
    /** Counts revocations and forget calls: a lookup that raced with one is not remembered. */
    private final java.util.concurrent.atomic.AtomicLong changes = new java.util.concurrent.atomic.AtomicLong();

    public ApiTokens(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    public Issued issue(String account, String name) {
        if (name == null || name.isBlank() || name.length() > 64) {
            throw new BadRequest("invalid token", List.of(new Violation("name", "must be 1-64 characters")));
        }
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String token = PREFIX + Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        long id = jdbc.sql("INSERT INTO api_token (account, name, token_sha256) VALUES (?, ?, ?) RETURNING id")
                .params(account, name, Sha256.of(token)).query(Long.class).single();
        return new Issued(id, name, token);
    }

    public List<Token> list(String account) {
        return jdbc.sql("SELECT id, name, created_at, revoked_at FROM api_token WHERE account = ? ORDER BY id")
                .param(account).query(Token.class).list();
    }

    /** Revokes one of the account's tokens (404 when it has none with that id). */
    public void revoke(String account, long id) {
        if (jdbc.sql("UPDATE api_token SET revoked_at = coalesce(revoked_at, now()) WHERE id = ? AND account = ?")
                .params(id, account).update() == 0) {
            throw new NotFound("you have no token " + id);
        }
        forget();
    }

    /** Revokes every token of the account with this name (e.g. the CLI's token of an earlier start). */
    public void revokeNamed(String account, String name) {
        jdbc.sql("UPDATE api_token SET revoked_at = now() WHERE account = ? AND name = ? AND revoked_at IS NULL")
                .params(account, name).update();
        forget();
    }

    /** Revokes every token of the account (an admin set its password and asked for this); answers how many. */
    public int revokeAll(String account) {
        int revoked = jdbc.sql("UPDATE api_token SET revoked_at = now() WHERE account = ? AND revoked_at IS NULL")
                .param(account).update();
        forget();
        return revoked;
    }

    /** Whose the token is, when it was found valid a moment ago: no query, so no need to leave the event loop. */
    Optional<Holder> remembered(String token) {
        if (token == null || !token.startsWith(PREFIX) || token.length() > 128) {
            return Optional.empty();
        }
        Remembered remembered = valid.get(HexFormat.of().formatHex(Sha256.of(token)));
        return remembered != null && System.nanoTime() - remembered.until() < 0 ? Optional.of(remembered.holder())
                : Optional.empty();
    }

    /** Whose the token is, when it is a valid one. Blocking (a query unless it was found valid a moment ago). */
    Optional<Holder> holder(String token) {
        Optional<Holder> known = remembered(token);
        if (known.isPresent() || token == null || !token.startsWith(PREFIX) || token.length() > 128) {
            return known;
        }
        byte[] hash = Sha256.of(token);
        String key = HexFormat.of().formatHex(hash);
        long now = System.nanoTime();
        long before = changes.get();
        Optional<Holder> holder = jdbc.sql("""
                        SELECT a.name, a.role FROM api_token t JOIN account a ON a.name = t.account
                        WHERE t.token_sha256 = ? AND t.revoked_at IS NULL""").param(hash)
                .query((rs, i) -> new Holder(rs.getString(1), Role.of(rs.getString(2)))).optional();
        if (holder.isPresent() && changes.get() == before) {
            valid.put(key, new Remembered(holder.get(), now + REMEMBER_NANOS));
        } else {
            valid.remove(key);
        }
        return holder;
    }

    /** Forgets remembered tokens (an account's role changed or it was deleted). */
    void forget() {
        changes.incrementAndGet();
        valid.clear();
    }
}

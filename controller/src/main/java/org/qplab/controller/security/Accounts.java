package org.qplab.controller.security;

import java.util.List;
import java.util.Optional;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.Conflict;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.stereotype.Component;

/** The accounts (table account): name, role and password hash. Blocking. */
@Component
public class Accounts {

    /** An account as the API shows it (never its hash). */
    public record Account(String name, String role, java.time.OffsetDateTime createdAt) {}

    record Stored(String name, String passwordHash, Role role) {}

    static final String NAME = "[A-Za-z0-9._@-]{1,64}";
    static final int MIN_PASSWORD = 8;
    static final int MAX_PASSWORD_BYTES = 72;

    private final JdbcClient jdbc;
    private final PasswordEncoder encoder;

    public Accounts(JdbcClient jdbc, PasswordEncoder encoder) {
        this.jdbc = jdbc;
        this.encoder = encoder;
    }

    public long count() {
        return jdbc.sql("SELECT count(*) FROM account").query(Long.class).single();
    }

    public List<Account> list() {
        return jdbc.sql("SELECT name, role, created_at FROM account ORDER BY name").query(Account.class).list();
    }

    Optional<Stored> find(String name) {
        return jdbc.sql("SELECT name, password_hash, role FROM account WHERE name = ?").param(name)
                .query((rs, i) -> new Stored(rs.getString(1), rs.getString(2), Role.of(rs.getString(3)))).optional();
    }

    /** Creates an account; every rule it breaks is named (400), an existing name is a 409. */
    public Account create(String name, String password, String role) {
        List<Violation> violations = new java.util.ArrayList<>();
        if (name == null || !name.matches(NAME)) {
            violations.add(new Violation("name", "must be 1-64 characters of A-Z a-z 0-9 . _ @ -"));
        }
        String weak = weakness(password);
        if (weak != null) {
            violations.add(new Violation("password", weak));
        }
        Role parsed = null;
        try {
            parsed = Role.of(role);
        } catch (IllegalArgumentException e) {
            violations.add(new Violation("role", e.getMessage()));
        }
        if (!violations.isEmpty()) {
            throw new BadRequest("invalid account", violations);
        }
        int created = jdbc.sql("INSERT INTO account (name, password_hash, role) VALUES (?, ?, ?) ON CONFLICT DO NOTHING")
                .params(name, encoder.encode(password), parsed.id()).update();
        if (created == 0) {
            throw new Conflict("an account named '" + name + "' exists already");
        }
        return jdbc.sql("SELECT name, role, created_at FROM account WHERE name = ?").param(name).query(Account.class).single();
    }

    /**
     * Deletes an account and its tokens; the last admin cannot be deleted. One statement that locks the admins'
     * rows first, so that two admins deleting each other at once cannot both succeed.
     */
    public void delete(String name) {
        int deleted = jdbc.sql("""
                        WITH admins AS (SELECT name FROM account WHERE role = 'admin' FOR UPDATE)
                        DELETE FROM account
                        WHERE name = ? AND (role <> 'admin' OR (SELECT count(*) FROM admins) > 1)""")
                .param(name).update();
        if (deleted == 0) {
            find(name).orElseThrow(() -> new NotFound("no account named '" + name + "'"));
            throw new Conflict("'" + name + "' is the last admin: make another admin first");
        }
    }

    /** Gives the account another role; the last admin cannot be made anything else (locked as in delete). */
    public Account role(String name, String role) {
        Role parsed;
        try {
            parsed = Role.of(role);
        } catch (IllegalArgumentException e) {
            throw new BadRequest("invalid role", List.of(new Violation("role", e.getMessage())));
        }
        int changed = jdbc.sql("""
                        WITH admins AS (SELECT name FROM account WHERE role = 'admin' FOR UPDATE)
                        UPDATE account SET role = ? WHERE name = ?
                          AND (role <> 'admin' OR ? = 'admin' OR (SELECT count(*) FROM admins) > 1)""")
                .params(parsed.id(), name, parsed.id()).update();
        if (changed == 0) {
            find(name).orElseThrow(() -> new NotFound("no account named '" + name + "'"));
            throw new Conflict("'" + name + "' is the last admin: make another admin first");
        }
        return jdbc.sql("SELECT name, role, created_at FROM account WHERE name = ?").param(name).query(Account.class)
                .single();
    }

    /** Sets a new password (the account's own, or by an admin); answers the stamp sessions of it now carry. */
    public String password(String name, String password) {
        checkNewPassword(password);
        String hash = encoder.encode(password);
        if (jdbc.sql("UPDATE account SET password_hash = ? WHERE name = ?").params(hash, name).update() == 0) {
            throw new NotFound("no account named '" + name + "'");
        }
        return Passwords.stamp(hash);
    }

    /** Refuses a new password that breaks a rule (400), before anything else is checked. */
    static void checkNewPassword(String password) {
        String weak = weakness(password);
        if (weak != null) {
            throw new BadRequest("invalid password", List.of(new Violation("password", weak)));
        }
    }

    /** What is wrong with a new password (null: nothing). bcrypt reads at most 72 bytes of it. */
    private static String weakness(String password) {
        if (password == null || password.length() < MIN_PASSWORD) {
            return "must have at least " + MIN_PASSWORD + " characters";
        }
        if (password.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_PASSWORD_BYTES) {
            return "must have at most " + MAX_PASSWORD_BYTES + " bytes (bcrypt's limit)";
        }
        return null;
    }
}

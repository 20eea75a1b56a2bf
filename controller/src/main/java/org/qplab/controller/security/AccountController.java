package org.qplab.controller.security;

import java.security.Principal;
import java.util.List;
import org.qplab.controller.database.Jdbc;
import org.springframework.http.HttpStatus;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * Accounts and API tokens. Everyone logged in: who am I (/api/me), my password, my tokens. Admins: the accounts
 * (/api/users) and the audit log (/api/audit). Roles are enforced in SecurityConfiguration.
 */
@RestController
class AccountController {

    record Me(String name, String role, boolean anonymousRead) {}

    record NewAccount(String name, String password, String role) {}

    record NewPassword(String password) {}

    record NewToken(String name) {}

    private final Accounts accounts;
    private final ApiTokens tokens;
    private final AuditLog audit;
    private final Jdbc jdbc;
    private final SecurityProperties properties;

    AccountController(Accounts accounts, ApiTokens tokens, AuditLog audit, Jdbc jdbc, SecurityProperties properties) {
        this.accounts = accounts;
        this.tokens = tokens;
        this.audit = audit;
        this.jdbc = jdbc;
        this.properties = properties;
    }

    /** Who is logged in, with which role. */
    @GetMapping("/api/me")
    Me me(Authentication who) {
        return new Me(who.getName(), Role.of(who.getAuthorities()).id(), properties.anonymousRead());
    }

    /** Sets the caller's own password. */
    @PutMapping("/api/me/password")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    Mono<Void> password(Principal who, @RequestBody NewPassword body) {
        return jdbc.run(() -> accounts.password(who.getName(), body.password()));
    }

    @GetMapping("/api/tokens")
    Mono<List<ApiTokens.Token>> tokens(Principal who) {
        return jdbc.call(() -> tokens.list(who.getName()));
    }

    /** A new API token for the caller: its value is in this answer and nowhere else, ever. */
    @PostMapping("/api/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    Mono<ApiTokens.Issued> issue(Principal who, @RequestBody NewToken body) {
        return jdbc.call(() -> tokens.issue(who.getName(), body.name()));
    }

    @DeleteMapping("/api/tokens/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    Mono<Void> revoke(Principal who, @PathVariable long id) {
        return jdbc.run(() -> tokens.revoke(who.getName(), id));
    }

    @GetMapping("/api/users")
    Mono<List<Accounts.Account>> users() {
        return jdbc.call(accounts::list);
    }

    @PostMapping("/api/users")
    @ResponseStatus(HttpStatus.CREATED)
    Mono<Accounts.Account> create(@RequestBody NewAccount body) {
        return jdbc.call(() -> accounts.create(body.name(), body.password(), body.role()));
    }

    @PutMapping("/api/users/{name}/password")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    Mono<Void> setPassword(@PathVariable String name, @RequestBody NewPassword body) {
        return jdbc.run(() -> accounts.password(name, body.password()));
    }

    /** Deletes an account and its tokens (not the last admin). */
    @DeleteMapping("/api/users/{name}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    Mono<Void> delete(@PathVariable String name) {
        return jdbc.run(() -> {
            accounts.delete(name);
            tokens.forget();
        });
    }

    /** The newest audit events, newest first. */
    @GetMapping("/api/audit")
    Mono<List<AuditLog.Event>> audit(@RequestParam(defaultValue = "200") int limit) {
        return jdbc.call(() -> audit.recent(Math.max(1, Math.min(limit, 10_000))));
    }

}

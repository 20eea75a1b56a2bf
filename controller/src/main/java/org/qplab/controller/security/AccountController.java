package org.qplab.controller.security;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.security.Principal;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorBody;
import org.qplab.controller.api.Forbidden;
import org.qplab.controller.api.Violation;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.Authentication;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.UriComponentsBuilder;
import reactor.core.publisher.Mono;

/**
 * Accounts and API tokens. Everyone logged in: who am I (/api/me), my password, my tokens. Admins: the accounts
 * (/api/users) and the audit log (/api/audit). Roles are enforced in SecurityConfiguration.
 */
@RestController
@Tag(name = ApiTags.ACCOUNTS)
class AccountController {

    record Me(@Schema(description = "The account's name.") String name,
              @Schema(description = "viewer, operator or admin.") String role,
              @Schema(description = "Whether anyone may read without logging in (qplab.security.anonymous-read).")
              boolean anonymousRead) {}

    record NewAccount(@Schema(description = "1-64 characters of A-Z a-z 0-9 . _ @ -",
                              requiredMode = Schema.RequiredMode.REQUIRED) String name,
                      @Schema(description = "At least 8 characters.", requiredMode = Schema.RequiredMode.REQUIRED)
                      String password,
                      @Schema(description = "viewer (reads), operator (also submits, cancels, imports, sets "
                              + "baselines) or admin (everything).", requiredMode = Schema.RequiredMode.REQUIRED)
                      String role) {}

    record NewPassword(@Schema(description = "At least 8 characters, at most 72 bytes.",
                               requiredMode = Schema.RequiredMode.REQUIRED) String password,
                       @Schema(description = "Also revoke every API token of the account (default false). Its "
                               + "other sessions end either way.") Boolean revokeTokens) {}

    record OwnPassword(@Schema(description = "The password now: changing it needs it.",
                               requiredMode = Schema.RequiredMode.REQUIRED) String currentPassword,
                       @Schema(description = "At least 8 characters, at most 72 bytes.",
                               requiredMode = Schema.RequiredMode.REQUIRED) String password,
                       @Schema(description = "Also revoke every API token of mine (default false). My other "
                               + "sessions end either way.") Boolean revokeTokens) {}

    record NewRole(@Schema(description = "viewer, operator or admin.", requiredMode = Schema.RequiredMode.REQUIRED)
                   String role) {}

    record NewToken(@Schema(description = "What the token is for: 1-64 characters.",
                            requiredMode = Schema.RequiredMode.REQUIRED) String name) {}

    private final Accounts accounts;
    private final ApiTokens tokens;
    private final AccountSessions sessions;
    private final PasswordLogin passwords;
    private final AuditLog audit;
    private final Jdbc jdbc;
    private final SecurityProperties properties;

    AccountController(Accounts accounts, ApiTokens tokens, AccountSessions sessions, PasswordLogin passwords,
                      AuditLog audit, Jdbc jdbc, SecurityProperties properties) {
        this.accounts = accounts;
        this.tokens = tokens;
        this.sessions = sessions;
        this.passwords = passwords;
        this.audit = audit;
        this.jdbc = jdbc;
        this.properties = properties;
    }

    /** Who is logged in, with which role. */
    @GetMapping("/api/me")
    @Operation(operationId = "getMe", summary = "Who is logged in",
            description = "The account the request acts as (its session or API token) and its role, and whether "
                    + "anonymous read is on.")
    @ApiResponse(responseCode = "200", description = "The caller's account.")
    Me me(Authentication who) {
        return new Me(who.getName(), Role.of(who.getAuthorities()).id(), properties.anonymousRead());
    }

    /** Sets the caller's own password: the current one first (throttled like a login). */
    @PutMapping("/api/me/password")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "setMyPassword", summary = "Set my password",
            description = "Sets the caller's own password (at least 8 characters) given the current one: a wrong one "
                    + "is 403 and counts as a failed login (429 with Retry-After while the account or address waits). "
                    + "Every other session of the account ends; the one that asked stays logged in. With revokeTokens "
                    + "the account's API tokens are revoked too.")
    @ApiResponse(responseCode = "204", description = "Set.")
    @ApiResponse(responseCode = "403", ref = ErrorResponses.FORBIDDEN)
    @ApiResponse(responseCode = "429", description = "Too many wrong passwords for this account or from this address: "
            + "Retry-After says when to try again.")
    Mono<Void> password(Principal who, @RequestBody OwnPassword body, ServerWebExchange exchange) {
        String name = who.getName();
        if (body.currentPassword() == null) {
            throw new BadRequest("invalid password change", List.of(new Violation("currentPassword",
                    "the current password is needed to change it")));
        }
        Accounts.checkNewPassword(body.password());
        return passwords.check(name, body.currentPassword(), ClientAddress.of(exchange))
                .flatMap(right -> right ? jdbc.call(() -> accounts.password(name, body.password()))
                        : Mono.error(new Forbidden("the current password is wrong")))
                .flatMap(stamp -> changed(name, stamp, Boolean.TRUE.equals(body.revokeTokens()), exchange));
    }

    /** A wrong current password while the account or address waits (the login throttle). */
    @ExceptionHandler(Throttled.class)
    ResponseEntity<ErrorBody> throttled(Throttled e) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS)
                .header(HttpHeaders.RETRY_AFTER, String.valueOf(e.retryAfterSeconds()))
                .body(new ErrorBody(e.getMessage()));
    }

    @GetMapping("/api/tokens")
    @Operation(operationId = "listMyTokens", summary = "My API tokens",
            description = "The caller's API tokens, oldest first: id, name, when made and when revoked; never their "
                    + "values.")
    @ApiResponse(responseCode = "200", description = "The caller's tokens.")
    Mono<List<ApiTokens.Token>> tokens(Principal who) {
        return jdbc.call(() -> tokens.list(who.getName()));
    }

    /** A new API token for the caller: its value is in this answer and nowhere else, ever. */
    @PostMapping("/api/tokens")
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(operationId = "issueToken", summary = "Make an API token",
            description = "A new API token for the caller, acting with the caller's role: send it as "
                    + "'Authorization: Bearer qplab_...'. Its value is in this answer and nowhere else, ever (only its "
                    + "SHA-256 is kept).")
    @ApiResponse(responseCode = "201", description = "The token, with its value.")
    Mono<ApiTokens.Issued> issue(Principal who, @RequestBody NewToken body) {
        return jdbc.call(() -> tokens.issue(who.getName(), body.name()));
    }

    @DeleteMapping("/api/tokens/{id}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "revokeToken", summary = "Revoke one of my API tokens",
            description = "Revokes one of the caller's tokens at once; 404 when the caller has none with that id.")
    @ApiResponse(responseCode = "204", description = "Revoked.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Void> revoke(Principal who, @PathVariable long id) {
        return jdbc.run(() -> tokens.revoke(who.getName(), id));
    }

    @GetMapping("/api/users")
    @Operation(operationId = "listAccounts", summary = "List accounts",
            description = "Every account with its role and when it was made. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "The accounts.")
    @ApiResponse(responseCode = "403", ref = ErrorResponses.FORBIDDEN)
    Mono<List<Accounts.Account>> users() {
        return jdbc.call(accounts::list);
    }

    @PostMapping("/api/users")
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(operationId = "createAccount", summary = "Create an account",
            description = "A new account with a password and a role; every rule the request breaks is listed in one "
                    + "400, and 409 when the name is taken. Needs an admin.")
    @ApiResponse(responseCode = "201", description = "The account.")
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Accounts.Account> create(@RequestBody NewAccount body) {
        return jdbc.call(() -> accounts.create(body.name(), body.password(), body.role()));
    }

    @PutMapping("/api/users/{name}/password")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "setAccountPassword", summary = "Set an account's password",
            description = "Sets another account's password (at least 8 characters): every session of that account ends "
                    + "(but the admin's own, when it is the admin's account); with revokeTokens its API tokens are "
                    + "revoked too. Needs an admin.")
    @ApiResponse(responseCode = "204", description = "Set.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Void> setPassword(@PathVariable String name, @RequestBody NewPassword body, ServerWebExchange exchange) {
        return jdbc.call(() -> accounts.password(name, body.password()))
                .flatMap(stamp -> changed(name, stamp, Boolean.TRUE.equals(body.revokeTokens()), exchange));
    }

    /** Gives an account another role (not the last admin): its sessions and tokens act with it at once. */
    @PutMapping("/api/users/{name}/role")
    @Operation(operationId = "setAccountRole", summary = "Set an account's role",
            description = "Gives the account another role; its sessions and API tokens act with the new role from "
                    + "their next request. 409 when it would leave no admin. Needs an admin.")
    @ApiResponse(responseCode = "200", description = "The account, with its new role.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Accounts.Account> setRole(@PathVariable String name, @RequestBody NewRole body) {
        return jdbc.call(() -> {
            Accounts.Account account = accounts.role(name, body.role());
            sessions.forget(name);
            tokens.forget();
            return account;
        });
    }

    /** Deletes an account and its tokens (not the last admin). */
    @DeleteMapping("/api/users/{name}")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "deleteAccount", summary = "Delete an account",
            description = "Deletes the account and its API tokens; its sessions end at their next request. 409 for "
                    + "the last admin (make another admin first). Needs an admin.")
    @ApiResponse(responseCode = "204", description = "Deleted.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    @ApiResponse(responseCode = "409", ref = ErrorResponses.CONFLICT)
    Mono<Void> delete(@PathVariable String name) {
        return jdbc.run(() -> {
            accounts.delete(name);
            sessions.forget(name);
            tokens.forget();
        });
    }

    /** The audit log, a page at a time, newest first, filtered. */
    @GetMapping("/api/audit")
    @Operation(operationId = "listAuditEvents", summary = "The audit log",
            description = "Audit events, newest first (by id, the order they were recorded in): every change requested "
                    + "under /api/ (refused ones included; reads, and POST /api/experiments/validate, which stores "
                    + "nothing, are not audited) and every login, with who, what, the status answered and from where. "
                    + "Failed logins are one event per address and minute ('failed logins', 'throttled logins'): times "
                    + "counts the tries, target lists the account names tried. Paged: the next page is the same query "
                    + "with before set to the last id of this one (the Link header, rel=\"next\", has it when the page "
                    + "is full); a page shorter than limit is the last. Filters: actor, action, status, since, until. "
                    + "Needs an admin.")
    @ApiResponse(responseCode = "200", description = "The events, newest first.", headers = @Header(name = "Link",
            description = "When the page is full: the next page's URL (this query with before), rel=\"next\".",
            schema = @Schema(type = "string")))
    @ApiResponse(responseCode = "403", ref = ErrorResponses.FORBIDDEN)
    Mono<ResponseEntity<List<AuditLog.Event>>> audit(
            @Parameter(description = "How many events, 1 to 10000 (values outside are clamped).")
            @RequestParam(defaultValue = "200") int limit,
            @Parameter(description = "The cursor: only events older than the event with this id (the last id of the "
                    + "page before).") @RequestParam(required = false) Long before,
            @Parameter(description = "Only this account's events (the name exactly).")
            @RequestParam(required = false) String actor,
            @Parameter(description = "Only events whose action contains this, in any case: DELETE, /api/hosts, login.")
            @RequestParam(required = false) String action,
            @Parameter(description = "Only events answered with this HTTP status (403), or of this class (4xx).")
            @RequestParam(required = false) String status,
            @Parameter(description = "Only events at or after this time, ISO 8601 with its offset "
                    + "(2026-11-29T04:00:00Z).") @RequestParam(required = false) String since,
            @Parameter(description = "Only events before this time, ISO 8601 with its offset.")
            @RequestParam(required = false) String until,
            ServerWebExchange exchange) {
        AuditLog.Query query = auditQuery(Math.max(1, Math.min(limit, 10_000)), before, actor, action, status, since, until);
        return jdbc.call(() -> audit.page(query)).map(events -> {
            ResponseEntity.BodyBuilder answer = ResponseEntity.ok();
            if (events.size() == query.limit()) {
                var request = exchange.getRequest();
                String next = UriComponentsBuilder.fromPath(request.getPath().value()).query(request.getURI().getRawQuery())
                        .replaceQueryParam("before", events.get(events.size() - 1).id()).build().toUriString();
                answer.header(HttpHeaders.LINK, "<" + next + ">; rel=\"next\"");
            }
            return answer.body(events);
        });
    }

    /** The audit query of these parameters; a 400 naming each that is wrong. */
    private static AuditLog.Query auditQuery(int limit, Long before, String actor, String action, String status,
                                             String since, String until) {
        List<Violation> violations = new ArrayList<>();
        if (before != null && before < 1) {
            violations.add(new Violation("before", "must be an event id (1 or more), got " + before));
        }
        Integer code = null;
        Integer codeClass = null;
        if (status != null && !status.isEmpty()) {
            if (status.matches("[1-5][0-9][0-9]")) {
                code = Integer.parseInt(status);
            } else if (status.matches("[1-5][xX][xX]")) {
                codeClass = status.charAt(0) - '0';
            } else {
                violations.add(new Violation("status", "must be an HTTP status (403) or a class of them (4xx), got '"
                        + status + "'"));
            }
        }
        OffsetDateTime from = time("since", since, violations);
        OffsetDateTime to = time("until", until, violations);
        if (from != null && to != null && !from.isBefore(to)) {
            violations.add(new Violation("until", "must be after since (" + since + "), got " + until));
        }
        if (!violations.isEmpty()) {
            throw new BadRequest("invalid request", violations);
        }
        return new AuditLog.Query(limit, before, blankToNull(actor), blankToNull(action), code, codeClass, from, to);
    }

    private static OffsetDateTime time(String field, String text, List<Violation> violations) {
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return OffsetDateTime.parse(text);
        } catch (DateTimeParseException e) {
            violations.add(new Violation(field, "must be a time in ISO 8601 with its offset, e.g. 2026-11-29T04:00:00Z, "
                    + "got '" + text + "'"));
            return null;
        }
    }

    private static String blankToNull(String text) {
        return text == null || text.isEmpty() ? null : text;
    }

    /**
     * After a password change: every session of the account but the caller's own ends at its next request (their
     * stamp is the old password's), and its tokens are revoked when asked.
     */
    private Mono<Void> changed(String name, String stamp, boolean revokeTokens, ServerWebExchange exchange) {
        sessions.forget(name);
        Mono<Void> revoke = revokeTokens ? jdbc.run(() -> tokens.revokeAll(name)) : Mono.empty();
        return revoke.then(sessions.renew(exchange, name, stamp));
    }
}

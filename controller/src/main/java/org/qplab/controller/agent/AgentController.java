package org.qplab.controller.agent;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.security.Principal;
import java.util.List;
import org.qplab.controller.api.ApiTags;
import org.qplab.controller.api.BadRequest;
import org.qplab.controller.api.ErrorResponses;
import org.qplab.controller.api.NotFound;
import org.qplab.controller.api.Violation;
import org.qplab.controller.database.Jdbc;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * GET /api/agents: every agent that ever registered, and whether it is connected. POST and DELETE
 * /api/agents/{id}/token: an agent's own token, issued anew or revoked (admin only); either ends the link that
 * registered with the earlier one.
 */
@RestController
@RequestMapping("/api/agents")
@Tag(name = ApiTags.AGENTS)
class AgentController {

    /** A token just issued: shown this once, only its SHA-256 is kept. */
    record IssuedToken(String agentId,
                       @Schema(description = "The agent's token: shown in this answer only, never again.")
                       String token) {}

    private final Jdbc jdbc;
    private final AgentRepository agents;
    private final AgentToken tokens;
    private final LinkRevocation revocation;

    AgentController(Jdbc jdbc, AgentRepository agents, AgentToken tokens, LinkRevocation revocation) {
        this.jdbc = jdbc;
        this.agents = agents;
        this.tokens = tokens;
        this.revocation = revocation;
    }

    @GetMapping
    @Operation(operationId = "listAgents", summary = "List agents",
            description = "Every agent that ever registered: whether it is connected now, when it registered and "
                    + "last sent a heartbeat, and the facts it reported about its host (kernel, CPU, RDMA devices, "
                    + "engine).")
    @ApiResponse(responseCode = "200", description = "The agents.")
    Mono<List<AgentRepository.AgentRow>> list() {
        return jdbc.call(agents::list);
    }

    /**
     * Admin only. Issues agent id its own token, replacing any earlier one: from then on the agent registers under
     * that id only with it (the enrolment secret never does again). The agent takes it through --token-file or
     * QPLAB_AGENT_TOKEN. A link registered with the earlier token is closed at once.
     */
    @PostMapping("/{id}/token")
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(operationId = "issueAgentToken", summary = "Issue an agent its own token",
            description = "Issues agent id a token of its own, replacing any earlier one (the one it enrolled with "
                    + "included): from then on the agent registers under that id only with it (the enrolment secret "
                    + "never does again); it takes it through --token-file or QPLAB_AGENT_TOKEN. A link registered "
                    + "with the earlier token is closed at once (close code 4410); one with a deployed host's token "
                    + "stays. Needs an admin.")
    @ApiResponse(responseCode = "201", description = "The token, shown this once: only its SHA-256 is kept.")
    Mono<IssuedToken> issue(@PathVariable String id, Principal admin) {
        return valid(id).then(jdbc.call(() -> {
            IssuedToken issued = new IssuedToken(id, tokens.issue(id));
            revocation.tokenWithdrawn(id, "replaced", name(admin));
            return issued;
        }));
    }

    /**
     * Admin only. Revokes agent id's own token, issued or deployed (404 when it has none), and closes its link; the
     * enrolment secret does not register the id again.
     */
    @DeleteMapping("/{id}/token")
    @ResponseStatus(HttpStatus.NO_CONTENT)
    @Operation(operationId = "revokeAgentToken", summary = "Revoke an agent's own token",
            description = "Revokes agent id's own token, issued (at enrolment or by an admin) or deployed with its "
                    + "host (404 when it has none), and closes the link it registered with at once (close code 4410); "
                    + "nothing that link sends afterwards is stored. The enrolment secret does not register the id "
                    + "again: only a token issued anew (or a new deploy) does. Needs an admin.")
    @ApiResponse(responseCode = "204", description = "Revoked.")
    @ApiResponse(responseCode = "404", ref = ErrorResponses.NOT_FOUND)
    Mono<Void> revoke(@PathVariable String id, Principal admin) {
        return valid(id).then(jdbc.call(() -> {
            boolean revoked = tokens.revoke(id);
            if (revoked) {
                revocation.tokenWithdrawn(id, "revoked", name(admin));
            }
            return revoked;
        })).flatMap(revoked -> revoked ? Mono.<Void>empty()
                : Mono.error(new NotFound("agent '" + id + "' has no token of its own")));
    }

    private static String name(Principal principal) {
        return principal == null ? null : principal.getName();
    }

    private static Mono<Void> valid(String id) {
        return id.matches(AgentToken.AGENT_ID) ? Mono.empty() : Mono.error(new BadRequest("invalid agent id",
                List.of(new Violation("id", "must be 1-128 characters of A-Z a-z 0-9 . _ : -"))));
    }
}

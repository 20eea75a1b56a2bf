package org.qplab.controller.agent;

import org.qplab.controller.security.AuditLog;
import org.qplab.protocol.LinkClose;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.socket.CloseStatus;

/**
 * Ends the link of an agent whose token an admin revoked or replaced, at once: closed with
 * {@link LinkClose#TOKEN_REVOKED} and an audit row; nothing the link sends after that is read or stored, and a hello
 * whose token was checked before is not registered ({@link AgentRegistry#revoked}). A link that registered with
 * another token of the id that is still good (a deployed host's, when an admin issues one by hand) stays.
 */
@Component
class LinkRevocation {

    private static final Logger log = LoggerFactory.getLogger(LinkRevocation.class);
    private final AgentRegistry registry;
    private final AgentToken tokens;
    private final AuditLog audit;

    LinkRevocation(AgentRegistry registry, AgentToken tokens, AuditLog audit) {
        this.registry = registry;
        this.tokens = tokens;
        this.audit = audit;
    }

    /** agentId's token is no longer good (why: "revoked", "replaced"); actor: the admin. Blocking (reads tokens). */
    void tokenWithdrawn(String agentId, String why, String actor) {
        registry.revoked(agentId).filter(live -> !tokens.holds(agentId, live.tokenSha256())).ifPresent(live -> {
            String reason = "agent token " + why + " by an admin";
            live.refuse(new CloseStatus(LinkClose.TOKEN_REVOKED.code(), reason));
            log.warn("agent {} at {}: closing its link, its {}", agentId, live.remote(), reason);
            audit.record(actor, "agent link closed: " + reason, agentId, LinkClose.TOKEN_REVOKED.code(), live.remote());
        });
    }
}

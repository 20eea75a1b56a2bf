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
 * whose token was checked before is not registered ({@link AgentRegistry#revoked}).
 */
@Component
class LinkRevocation {

    private static final Logger log = LoggerFactory.getLogger(LinkRevocation.class);
    private final AgentRegistry registry;
    private final AuditLog audit;

    LinkRevocation(AgentRegistry registry, AuditLog audit) {
        this.registry = registry;
        this.audit = audit;
    }

    /** agentId's token is no longer good (why: "revoked", "replaced"); actor: the admin. */
    void tokenWithdrawn(String agentId, String why, String actor) {
        registry.revoked(agentId).ifPresent(live -> {
            String reason = "agent token " + why + " by an admin";
            live.refuse(new CloseStatus(LinkClose.TOKEN_REVOKED.code(), reason));
            log.warn("agent {} at {}: closing its link, its {}", agentId, live.remote(), reason);
            audit.record(actor, "agent link closed: " + reason, agentId, LinkClose.TOKEN_REVOKED.code(), live.remote());
        });
    }
}

package org.qplab.controller.agent;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import org.qplab.controller.database.Jdbc;
import org.qplab.controller.security.AuditLog;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.protocol.IntervalFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Whether a hello registers its agent, and under which token. The id's own token always does, whatever others
 * failed from the same address: it is 32 random bytes, which no throttle needs to protect. The enrolment secret
 * registers only an id never bound to a token (and not connected), binding it to a new token of its own at once,
 * which the welcome carries. Failed hellos count against their address ({@link HelloThrottle}); while an address is
 * blocked, every hello from it but one with its id's own token is refused as throttled, the right enrolment secret
 * too, so that guessing learns nothing there.
 */
@Component
class AgentAdmission {

    /** What to do with a hello. */
    sealed interface Verdict permits Admitted, Refused {}

    /**
     * Register the link: tokenSha256 is what it holds from now on; issuedToken goes in the welcome (or null);
     * checkedAt (System.nanoTime()) is when its token was found good, before any revocation that came later.
     */
    record Admitted(String agentId, byte[] tokenSha256, String issuedToken, long checkedAt) implements Verdict {}

    /** Close the link with this code and reason. */
    record Refused(LinkClose close, String reason) implements Verdict {}

    private static final Logger log = LoggerFactory.getLogger(AgentAdmission.class);
    private final Jdbc jdbc;
    private final AgentToken tokens;
    private final AgentRegistry registry;
    private final HelloThrottle throttle;
    private final AuditLog audit;

    AgentAdmission(Jdbc jdbc, AgentToken tokens, AgentRegistry registry, HelloThrottle throttle, AuditLog audit) {
        this.jdbc = jdbc;
        this.tokens = tokens;
        this.registry = registry;
        this.throttle = throttle;
        this.audit = audit;
    }

    Mono<Verdict> admit(AgentMessage.Hello hello, InetSocketAddress remote) {
        String agentId = hello.agentId();
        if (agentId == null || !agentId.matches(AgentToken.AGENT_ID)) {
            return Mono.just(refusedHello(remote, LinkClose.BAD_HELLO,
                    "agent id must be 1-128 characters of A-Z a-z 0-9 . _ : -"));
        }
        if (hello.frameLayout() == null || !IntervalFrame.reads(hello.frameLayout())) { // v2: the previous release's agents
            return Mono.just(new Refused(LinkClose.FRAME_LAYOUT, new IntervalFrame.UnsupportedLayoutException(
                    hello.frameLayout() == null ? 1 : hello.frameLayout()).getMessage()));
        }
        String token = hello.token() == null ? "" : hello.token();
        long checkedAt = System.nanoTime();
        return jdbc.call(() -> tokens.check(agentId, token)).flatMap(presented -> {
            if (presented == AgentToken.Presented.OWN) {
                byte[] sha256 = AgentToken.sha256(token);
                // a valid token of its own: not a failed hello, whatever the answer
                return Mono.just(registry.heldByAnother(agentId, sha256) ? taken(agentId, remote)
                        : new Admitted(agentId, sha256, null, checkedAt));
            }
            Duration blocked = throttle.blocked(remote);
            if (!blocked.isZero()) {
                long seconds = Math.max(1, (blocked.toMillis() + 999) / 1000);
                return Mono.just(new Refused(LinkClose.THROTTLED,
                        "too many failed agent hellos from this address; try again in " + seconds + " s"));
            }
            return switch (presented) {
                case ENROLMENT -> enrol(agentId, remote, checkedAt);
                case ENROLMENT_CLOSED -> Mono.just(enrolmentClosed(agentId, remote));
                default -> Mono.just(refusedHello(remote, LinkClose.TOKEN_REFUSED,
                        "agent token refused for agent '" + agentId + "'"));
            };
        });
    }

    /** A link that said no hello in time, or something else first: a failed hello of its address. */
    void failed(InetSocketAddress remote) {
        throttle.failed(remote);
    }

    private Mono<Verdict> enrol(String agentId, InetSocketAddress remote, long checkedAt) {
        if (registry.connected(agentId)) { // bound already, but not even a race may take a live link's id
            throttle.failed(remote);
            return Mono.just(taken(agentId, remote));
        }
        return jdbc.call(() -> Optional.ofNullable(tokens.enrol(agentId))).map(issued -> {
            if (issued.isEmpty()) { // bound meanwhile: another enrolment, an admin or a deploy was first
                return enrolmentClosed(agentId, remote);
            }
            log.info("agent {} enrolled from {} with the enrolment secret: it has a token of its own now", agentId, remote);
            audit.record(null, "agent enrolled", agentId, null, address(remote));
            return new Admitted(agentId, AgentToken.sha256(issued.get()), issued.get(), checkedAt);
        });
    }

    private Refused taken(String agentId, InetSocketAddress remote) {
        registry.get(agentId).ifPresent(live -> log.warn("agent {} is connected from {}; a hello under its id from {} "
                + "presented another token", agentId, live.remote(), remote));
        return new Refused(LinkClose.ID_LIVE, "agent '" + agentId + "' is connected already, with another token");
    }

    private Refused enrolmentClosed(String agentId, InetSocketAddress remote) {
        return refusedHello(remote, LinkClose.ENROLMENT_CLOSED, "agent '" + agentId
                + "' has, or had, a token of its own: the enrolment secret does not register it");
    }

    /** A failed hello: it counts against its address. */
    private Refused refusedHello(InetSocketAddress remote, LinkClose close, String reason) {
        throttle.failed(remote);
        return new Refused(close, reason);
    }

    private static String address(InetSocketAddress remote) {
        return remote == null || remote.getAddress() == null ? null : remote.getAddress().getHostAddress();
    }
}

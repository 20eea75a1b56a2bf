package org.qplab.controller.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.qplab.protocol.LinkClose;
import org.springframework.stereotype.Component;

/** The agents connected to this controller now, by id. */
@Component
public class AgentRegistry {

    private final Map<String, AgentConnection> connected = new ConcurrentHashMap<>();
    /** When each agent id's token was last revoked or replaced (System.nanoTime()). */
    private final Map<String, Long> revoked = new ConcurrentHashMap<>();
    private static final long FORGET_REVOCATIONS_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);

    /** What registering a connection did: refused (and why), or what it replaced. */
    record Registration(LinkClose refused, Optional<AgentConnection> replaced) {}

    /**
     * Registers the connection, whose token was found good at checkedAt (System.nanoTime()), replacing an earlier
     * one of the same agent only when that one is closed or registered with the same token (the agent reconnecting
     * after a dead link). Refuses it when another live link holds the id, or when the id's token was revoked since.
     */
    Registration register(AgentConnection connection, byte[] tokenSha256, long checkedAt) {
        LinkClose[] refused = {null};
        AgentConnection[] replaced = {null};
        connected.compute(connection.agentId(), (id, live) -> {
            Long revokedAt = revoked.get(id);
            if (revokedAt != null && revokedAt - checkedAt > 0) {
                refused[0] = LinkClose.TOKEN_REVOKED;
                return live;
            }
            if (live != null && live.open() && !live.presentedSame(tokenSha256)) {
                refused[0] = LinkClose.ID_LIVE;
                return live;
            }
            replaced[0] = live;
            return connection;
        });
        return new Registration(refused[0], Optional.ofNullable(replaced[0]));
    }

    /**
     * A token of agentId was revoked or replaced: a hello checked before now does not register. Returns the live
     * link, if any (closed by the caller unless its token is still good).
     */
    Optional<AgentConnection> revoked(String agentId) {
        long now = System.nanoTime();
        revoked.values().removeIf(at -> now - at > FORGET_REVOCATIONS_NANOS); // hellos check far sooner than that
        revoked.put(agentId, now);
        return Optional.ofNullable(connected.get(agentId)).filter(AgentConnection::open);
    }

    /** Whether a live link of agentId registered with another token than this one (a hello that cannot replace it). */
    boolean heldByAnother(String agentId, byte[] tokenSha256) {
        AgentConnection live = connected.get(agentId);
        return live != null && live.open() && !live.presentedSame(tokenSha256);
    }

    /** Whether agentId has a live link. */
    public boolean connected(String agentId) {
        AgentConnection live = connected.get(agentId);
        return live != null && live.open();
    }

    /** Forgets the connection unless the agent has already reconnected on a newer one. */
    boolean remove(AgentConnection connection) {
        return connection.agentId() != null && connected.remove(connection.agentId(), connection);
    }

    public List<AgentConnection> idle() {
        return connected.values().stream().filter(AgentConnection::idle).toList();
    }

    /** How many agents have an open link now. */
    public int connectedCount() {
        return connected.size();
    }

    /** Frames and run ends the connected agents keep unacknowledged (their last heartbeats), in all. */
    public long spooledEntries() {
        return connected.values().stream().mapToLong(AgentConnection::spooled).sum();
    }

    /** The bytes of those, in memory and on disk. */
    public long spooledBytes() {
        return connected.values().stream().mapToLong(AgentConnection::spoolBytes).sum();
    }

    /** The hello facts of agentId while it is connected (an open link), else null. */
    public Map<String, Object> connectedFacts(String agentId) {
        AgentConnection live = connected.get(agentId);
        return live != null && live.open() ? live.facts() : null;
    }

    /** Every agent with an open link now, by id, with its hello facts (empty when its hello had none). */
    public Map<String, Map<String, Object>> connectedFacts() {
        Map<String, Map<String, Object>> all = new java.util.TreeMap<>();
        connected.forEach((id, live) -> {
            if (live.open()) {
                all.put(id, live.facts() == null ? Map.of() : live.facts());
            }
        });
        return all;
    }

    public Optional<AgentConnection> get(String agentId) {
        return Optional.ofNullable(connected.get(agentId));
    }
}

package org.qplab.controller.agent;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Component;

/** The agents connected to this controller now, by id. */
@Component
public class AgentRegistry {

    private final Map<String, AgentConnection> connected = new ConcurrentHashMap<>();

    /** What registering a connection did: refused (another live link of the agent), or what it replaced. */
    record Registration(boolean refused, Optional<AgentConnection> replaced) {}

    /**
     * Registers the connection, replacing an earlier one of the same agent only when that one is closed or
     * registered with the same token (the agent reconnecting after a dead link); otherwise refuses it.
     */
    Registration register(AgentConnection connection, byte[] tokenSha256) {
        boolean[] refused = {false};
        AgentConnection[] replaced = {null};
        connected.compute(connection.agentId(), (id, live) -> {
            if (live != null && live.open() && !live.presentedSame(tokenSha256)) {
                refused[0] = true;
                return live;
            }
            replaced[0] = live;
            return connection;
        });
        return new Registration(refused[0], Optional.ofNullable(replaced[0]));
    }

    /** Whether a live link of agentId registered with another token than this one (a hello that cannot replace it). */
    boolean heldByAnother(String agentId, byte[] tokenSha256) {
        AgentConnection live = connected.get(agentId);
        return live != null && live.open() && !live.presentedSame(tokenSha256);
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

    public Optional<AgentConnection> get(String agentId) {
        return Optional.ofNullable(connected.get(agentId));
    }
}

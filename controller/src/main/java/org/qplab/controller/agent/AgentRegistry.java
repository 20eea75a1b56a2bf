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

    /** Registers the connection; returns the earlier connection of the same agent, if one was left open. */
    Optional<AgentConnection> register(AgentConnection connection) {
        return Optional.ofNullable(connected.put(connection.agentId(), connection));
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

    public Optional<AgentConnection> get(String agentId) {
        return Optional.ofNullable(connected.get(agentId));
    }
}

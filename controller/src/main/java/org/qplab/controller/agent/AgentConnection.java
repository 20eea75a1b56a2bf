package org.qplab.controller.agent;

import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.qplab.protocol.AgentMessage;
import org.springframework.web.reactive.socket.CloseStatus;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * One connected agent: its outbound message stream, the run it is busy with, the SHA-256 of the token it
 * registered with, and the runs it is known to own.
 */
public final class AgentConnection {

    /** How many owned run ids a link remembers (a miss costs one query). */
    static final int OWNED_RUNS = 1024;

    private final String remote;
    private volatile byte[] tokenSha256;
    /** Runs assigned to this agent (as loopback, client or server), most recently used last; guarded by itself. */
    private final Map<Long, Boolean> owned = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
            return size() > OWNED_RUNS;
        }
    };
    private final Sinks.Many<AgentMessage> outbound = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private final Sinks.One<CloseStatus> closing = Sinks.one();
    private volatile String agentId;
    /** What the agent reported about its host in its hello (kernel, devices, nvmeof capabilities). */
    private volatile Map<String, Object> facts = Map.of();
    private volatile Long busyWith;
    private volatile boolean open = true;
    private volatile boolean refused;
    /** When a message was last handed to the link (nanoTime). */
    private volatile long lastSent = System.nanoTime();
    private volatile long spooled;
    private volatile long spoolBytes;
    /** What the link's first frame was (type, length, start), for the log when the link is refused before a hello. */
    private volatile String firstFrame;

    AgentConnection(String remote) {
        this.remote = remote;
    }

    public String agentId() {
        return agentId;
    }

    void registeredAs(String agentId) {
        this.agentId = agentId;
    }

    void facts(Map<String, Object> facts) {
        this.facts = facts == null ? Map.of() : facts;
    }

    /** The host facts of the agent's hello on this link. */
    public Map<String, Object> facts() {
        return facts;
    }

    String remote() {
        return remote;
    }

    /** Whether the link's first frame is still to be described (nothing has arrived yet). */
    boolean awaitsFirstFrame() {
        return firstFrame == null;
    }

    void firstFrame(String description) {
        if (firstFrame == null) {
            firstFrame = description;
        }
    }

    /** The link's first frame as the gateway received it, or null when none has arrived. */
    String firstFrame() {
        return firstFrame;
    }

    void presented(byte[] tokenSha256) {
        this.tokenSha256 = tokenSha256;
    }

    /** The SHA-256 of the token this link registered with (null before its hello). */
    byte[] tokenSha256() {
        return tokenSha256;
    }

    /** Whether this link registered with the token whose SHA-256 is given (constant time). */
    boolean presentedSame(byte[] tokenSha256) {
        byte[] mine = this.tokenSha256;
        return mine != null && MessageDigest.isEqual(mine, tokenSha256);
    }

    boolean open() {
        return open;
    }

    /** The link was refused: nothing more it sends is read (its close is under way). */
    void refuse() {
        refused = true;
    }

    /** Refuses the link from outside its own messages (its token was revoked): the gateway closes it with status. */
    void refuse(CloseStatus status) {
        refused = true;
        closing.tryEmitValue(status);
    }

    /** The status to close the link with when it is refused from outside ({@link #refuse(CloseStatus)}). */
    Mono<CloseStatus> closing() {
        return closing.asMono();
    }

    boolean refused() {
        return refused;
    }

    /** The run was assigned to this agent: its frames and end are accepted without asking the database. */
    public void assigned(long runId) {
        synchronized (owned) {
            owned.put(runId, Boolean.TRUE);
        }
    }

    /** Whether the run is known to be this agent's (false: not known here, ask the database). */
    boolean owns(long runId) {
        synchronized (owned) {
            return owned.get(runId) != null;
        }
    }

    /** What the agent said it keeps unacknowledged, in its last heartbeat. */
    void spool(long entries, long bytes) {
        this.spooled = entries;
        this.spoolBytes = bytes;
    }

    long spooled() {
        return spooled;
    }

    long spoolBytes() {
        return spoolBytes;
    }

    public boolean idle() {
        return open && !refused && agentId != null && busyWith == null;
    }

    public Long busyWith() {
        return busyWith;
    }

    public void busyWith(Long runId) {
        this.busyWith = runId;
    }

    /** Queues a message for the agent; false when the connection is gone or refused. */
    public synchronized boolean send(AgentMessage message) {
        boolean sent = open && !refused && outbound.tryEmitNext(message).isSuccess();
        if (sent) {
            lastSent = System.nanoTime();
        }
        return sent;
    }

    /**
     * Whether no message went to the agent for that long: then a keepalive ping is due. While its frames stream, the
     * agent hears their acknowledgements several times a second, and a ping would only cost both sides a write and a
     * read (1,000 of each per second at 1,000 agents).
     */
    boolean quietFor(Duration time) {
        return System.nanoTime() - lastSent >= time.toNanos();
    }

    Flux<AgentMessage> outbound() {
        return outbound.asFlux();
    }

    /** Frames of this link being stored, oldest first (a run's end waits for them). */
    private final ArrayDeque<CompletableFuture<Boolean>> ingesting = new ArrayDeque<>();

    /** A frame of this link went to the ingest. */
    synchronized void ingesting(CompletableFuture<Boolean> stored) {
        ingesting.add(stored);
        stored.whenComplete((fresh, error) -> forget(stored));
    }

    private synchronized void forget(CompletableFuture<Boolean> stored) {
        ingesting.remove(stored);
    }

    /** Completes when fewer than window frames of this link are being stored (fails when one of them failed). */
    synchronized CompletableFuture<?> window(int window) {
        return ingesting.size() < window ? CompletableFuture.completedFuture(null) : ingesting.peekFirst();
    }

    /** Completes when every frame this link has sent so far is stored (fails when one of them failed). */
    synchronized CompletableFuture<Void> drained() {
        return ingesting.isEmpty() ? CompletableFuture.completedFuture(null)
                : CompletableFuture.allOf(ingesting.toArray(CompletableFuture[]::new));
    }

    /** Completes when the connection closes. */
    Mono<Void> closed() {
        return closed.asMono();
    }

    synchronized void close() {
        open = false;
        outbound.tryEmitComplete();
        closed.tryEmitEmpty();
    }
}

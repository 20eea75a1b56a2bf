package org.qplab.controller.agent;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import org.qplab.protocol.AgentMessage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** One connected agent: its outbound message stream and the run it is busy with. */
public final class AgentConnection {

    private final String remote;
    private final Sinks.Many<AgentMessage> outbound = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> closed = Sinks.empty();
    private volatile String agentId;
    private volatile Long busyWith;
    private volatile boolean open = true;
    private volatile long spooled;
    private volatile long spoolBytes;

    AgentConnection(String remote) {
        this.remote = remote;
    }

    public String agentId() {
        return agentId;
    }

    void registeredAs(String agentId) {
        this.agentId = agentId;
    }

    String remote() {
        return remote;
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
        return open && agentId != null && busyWith == null;
    }

    public Long busyWith() {
        return busyWith;
    }

    public void busyWith(Long runId) {
        this.busyWith = runId;
    }

    /** Queues a message for the agent; false when the connection is gone. */
    public synchronized boolean send(AgentMessage message) {
        return open && outbound.tryEmitNext(message).isSuccess();
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

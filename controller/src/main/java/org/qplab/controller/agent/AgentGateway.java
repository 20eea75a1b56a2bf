package org.qplab.controller.agent;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.qplab.controller.database.Installation;
import org.qplab.controller.database.Jdbc;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.LinkClose;
import org.qplab.protocol.IntervalFrame;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.stereotype.Component;
import org.springframework.web.reactive.socket.CloseStatus;
import org.springframework.web.reactive.socket.WebSocketHandler;
import org.springframework.web.reactive.socket.WebSocketMessage;
import org.springframework.web.reactive.socket.WebSocketSession;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import tools.jackson.databind.ObjectMapper;

/**
 * The agents' WebSocket (/agent). An agent says hello with its token and host facts, then receives
 * runs and sends back frames and run ends. One agent's messages are handled strictly in
 * order, so a run's end is stored only after all of its frames.
 *
 * <p>What an agent may do: register under an id its token is good for, or enrol a new id with the enrolment secret
 * ({@link AgentAdmission}); say hello within qplab.agents.hello-timeout; and send frames, run ends, pair steps and
 * heartbeats only about runs assigned to it: the loopback agent, or the client or server of a pair. Anything else is
 * refused with a close code that says why ({@link LinkClose}), logged, and stored nowhere; so is everything a link
 * sends once its token was revoked ({@link LinkRevocation}).
 *
 * <p>The gateway speaks the protocol and nothing else: what agents send about runs goes on through two ports, frames
 * to a {@link FrameStore} and the rest to {@link AgentRuns}, and an agent free to work is announced as
 * {@link AgentReady}.
 */
@Component
public class AgentGateway implements WebSocketHandler {

    /** Frames of one agent being stored at once. */
    static final int INGEST_WINDOW = 4;
    /** How often every agent is pinged (agents take 3 heartbeats of silence for a dead link). */
    static final Duration KEEPALIVE = Duration.ofSeconds(1);
    private static final Logger log = LoggerFactory.getLogger(AgentGateway.class);
    /**
     * One clock for every link's keepalive: a timer per link woke a thread 1,000 times a second at 1,000 agents
     * (about 0.5 µs of the controller's CPU per interval stored, bench/ingest). Dropped, not queued, for a link that
     * cannot take a ping yet, so that no link holds back the others'.
     */
    private final Flux<Long> keepaliveTicks = Flux.interval(KEEPALIVE, KEEPALIVE).onBackpressureDrop().share();

    private final ObjectMapper json;
    private final Jdbc jdbc;
    private final AgentRepository agents;
    private final AgentRegistry registry;
    private final FrameStore frames;
    private final AgentRuns runs;
    private final ApplicationEventPublisher events;
    private final Installation installation;
    private final AgentAdmission admission;
    private final Duration helloTimeout;

    public AgentGateway(ObjectMapper json, Jdbc jdbc, AgentRepository agents, AgentRegistry registry, FrameStore frames,
                        AgentRuns runs, ApplicationEventPublisher events, Installation installation,
                        AgentAdmission admission, AgentProperties properties) {
        this.json = json;
        this.jdbc = jdbc;
        this.agents = agents;
        this.registry = registry;
        this.frames = frames;
        this.runs = runs;
        this.events = events;
        this.installation = installation;
        this.admission = admission;
        this.helloTimeout = properties.helloTimeout();
    }

    @Override
    public Mono<Void> handle(WebSocketSession session) {
        String remote = String.valueOf(session.getHandshakeInfo().getRemoteAddress());
        AgentConnection connection = new AgentConnection(remote);
        // Pings go out whatever the inbound side is doing (a busy ingest holds back reading, not writing):
        // an agent that hears nothing for a while knows the link is dead, not slow, and reconnects. Any message
        // counts as heard, so a link that carried one in the last half second is not pinged: the agent hears
        // something at least every 1.5 s, against its limit of 3 s.
        Flux<WebSocketMessage> keepalive = keepaliveTicks.onBackpressureDrop()
                .filter(i -> connection.quietFor(KEEPALIVE.dividedBy(2)))
                .map(i -> session.pingMessage(factory -> factory.allocateBuffer(0)))
                .takeUntilOther(connection.closed());
        Mono<Void> outbound = session.send(Flux.merge(connection.outbound()
                .map(message -> session.textMessage(json.writeValueAsString(message))), keepalive));
        Mono<Void> inbound = session.receive()
                .filter(m -> m.getType() == WebSocketMessage.Type.TEXT || m.getType() == WebSocketMessage.Type.BINARY)
                .doOnNext(m -> {
                    if (connection.awaitsFirstFrame()) {
                        connection.firstFrame(describe(m));
                    }
                })
                .map(this::decode)
                .concatMap(message -> handle(connection, session, message))
                .onErrorResume(e -> {
                    log.warn("agent {} at {}: closing the link after an error: {}", connection.agentId(), remote, e.toString());
                    return session.close(CloseStatus.SERVER_ERROR.withReason(truncate(e.getMessage())));
                })
                .then();
        // a link that never says hello is not kept open (a thousand of them held a thousand descriptors); a refused
        // hello was counted as a failure already, even when its link is still closing when the timeout comes
        Mono.delay(helloTimeout).takeUntilOther(connection.closed())
                .filter(t -> connection.agentId() == null && !connection.refused())
                .flatMap(t -> {
                    admission.failed(session.getHandshakeInfo().getRemoteAddress());
                    log.warn("agent connection from {}: no hello within {} ms; its first frame: {}", remote,
                            helloTimeout.toMillis(), connection.firstFrame() == null ? "none arrived" : connection.firstFrame());
                    return refuse(session, connection, CloseStatus.POLICY_VIOLATION,
                            "no hello within " + helloTimeout.toMillis() + " ms");
                })
                .subscribe(v -> { }, e -> log.debug("closing a silent link failed: {}", e.toString()));
        // a link refused from outside (its token revoked) is closed at once, whatever it is doing
        connection.closing().takeUntilOther(connection.closed()).flatMap(session::close)
                .subscribe(v -> { }, e -> log.debug("closing a revoked link failed: {}", e.toString()));
        return Mono.when(inbound.doFinally(signal -> connection.close()), outbound)
                .doFinally(signal -> disconnected(connection));
    }

    /**
     * A frame as it arrived, for the log: its type, length and first bytes (text up to 80 characters, any token in it
     * blanked out; binary as hex up to 16 bytes). Read without consuming the payload.
     */
    static String describe(WebSocketMessage message) {
        DataBuffer payload = message.getPayload();
        int length = payload.readableByteCount();
        int start = payload.readPosition();
        if (message.getType() == WebSocketMessage.Type.TEXT) {
            String prefix = payload.toString(start, Math.min(length, 80), StandardCharsets.UTF_8)
                    .replaceAll("(\"token\"\\s*:\\s*\")[^\"]*\"?", "$1…\"");
            return "text, " + length + " bytes: " + prefix + (length > 80 ? "…" : "");
        }
        StringBuilder hex = new StringBuilder();
        for (int i = 0; i < Math.min(length, 16); i++) {
            hex.append(String.format("%02x", payload.getByte(start + i)));
        }
        return message.getType().name().toLowerCase(Locale.ROOT) + ", " + length + " bytes: " + hex
                + (length > 16 ? "…" : "");
    }

    /** A frame of a layout this controller does not read: the agent is refused, told why (not an error to retry). */
    private record Unreadable(String reason) {}

    private Object decode(WebSocketMessage message) {
        if (message.getType() == WebSocketMessage.Type.BINARY) {
            byte[] frame = new byte[message.getPayload().readableByteCount()];
            message.getPayload().read(frame);
            try {
                return IntervalFrame.decode(ByteBuffer.wrap(frame));
            } catch (IntervalFrame.UnsupportedLayoutException e) {
                return new Unreadable(e.getMessage());
            }
        }
        return json.readValue(message.getPayloadAsText(), AgentMessage.class);
    }

    private Mono<Void> handle(AgentConnection connection, WebSocketSession session, Object message) {
        if (connection.refused()) {
            return Mono.empty(); // what was still on its way is not read
        }
        if (message instanceof Unreadable unreadable) {
            return refuse(session, connection, LinkClose.FRAME_LAYOUT, unreadable.reason());
        }
        if (connection.agentId() == null) {
            if (message instanceof AgentMessage.Hello hello) {
                return admission.admit(hello, session.getHandshakeInfo().getRemoteAddress()).flatMap(verdict ->
                        verdict instanceof AgentAdmission.Refused refused
                                ? refuse(session, connection, refused.close(), refused.reason())
                                : welcome(connection, session, hello, (AgentAdmission.Admitted) verdict));
            }
            admission.failed(session.getHandshakeInfo().getRemoteAddress());
            log.warn("agent connection from {}: its first message is a {}, not a hello; its first frame: {}",
                    connection.remote(), message.getClass().getSimpleName(), connection.firstFrame());
            return refuse(session, connection, LinkClose.BAD_HELLO, "the first message must be hello");
        }
        if (message instanceof IntervalFrame frame) {
            if (connection.owns(frame.runId())) { // the common case: no query
                return ingest(connection, session, frame);
            }
            return owned(connection, frame.runId()).flatMap(owned -> switch (owned) {
                case MINE -> ingest(connection, session, frame);
                case GONE -> Mono.fromRunnable(() -> { // acknowledged, so the agent drops it; stored nowhere
                    log.info("agent {}: frame {} of run {}, which no longer exists (deleted): dropped", connection.agentId(),
                            frame.seq(), frame.runId());
                    connection.send(new AgentMessage.BatchAck(frame.runId(), frame.seq()));
                });
                case OTHERS -> refuseRun(session, connection, "frame " + frame.seq(), frame.runId());
            });
        }
        // a heartbeat stores nothing about its run: it keeps the agent itself alive and says what it has spooled;
        // no order to keep with frames (not behind them), but one naming a run not the agent's is refused like a frame
        if (message instanceof AgentMessage.Heartbeat beat) {
            if (beat.runId() == null || connection.owns(beat.runId())) {
                return Mono.fromRunnable(() -> heartbeat(connection, beat));
            }
            return owned(connection, beat.runId()).flatMap(owned -> owned == AgentRepository.Assignment.OTHERS
                    ? refuseRun(session, connection, "heartbeat", beat.runId())
                    : Mono.fromRunnable(() -> heartbeat(connection, beat)));
        }
        // anything else (a run's end above all) only after every frame the agent sent before it is stored
        return Mono.fromFuture(connection.drained(), true).then(Mono.defer(() -> {
            if (connection.refused()) { // revoked while its frames were being stored
                return Mono.empty();
            }
            long runId = message instanceof AgentMessage.RunMessage m ? m.runId() : -1;
            if (runId < 0 || connection.owns(runId)) {
                return handleOther(connection, message);
            }
            return owned(connection, runId).flatMap(owned -> switch (owned) {
                case MINE -> handleOther(connection, message);
                case GONE -> Mono.fromRunnable(() -> { // its end is acknowledged, so the agent drops what it keeps
                    log.info("agent {}: {} of run {}, which no longer exists (deleted): dropped", connection.agentId(),
                            message.getClass().getSimpleName(), runId);
                    if (message instanceof AgentMessage.RunEnd) {
                        connection.send(new AgentMessage.RunRecorded(runId));
                    }
                });
                case OTHERS -> refuseRun(session, connection, message.getClass().getSimpleName(), runId);
            });
        }));
    }

    /** Whose the run is, seen from the connection's agent; asks the database once for a run not known here. */
    private Mono<AgentRepository.Assignment> owned(AgentConnection connection, long runId) {
        return jdbc.call(() -> agents.assignment(connection.agentId(), runId)).doOnNext(owned -> {
            if (owned == AgentRepository.Assignment.MINE) {
                connection.assigned(runId);
            }
        });
    }

    private Mono<Void> ingest(AgentConnection connection, WebSocketSession session, IntervalFrame frame) {
        if (connection.refused()) { // revoked while its run's owner was looked up
            return Mono.empty();
        }
        CompletableFuture<Boolean> stored = frames.store(frame); // completes once stored and shown to live watchers
        // the link waits for this (drained(), before a run's end) only once the frame is acked and announced:
        // a run's end handled between the store and the announcement reached a live watcher before it
        connection.ingesting(stored.whenComplete((fresh, error) -> {
            if (error == null) {
                connection.send(new AgentMessage.BatchAck(frame.runId(), frame.seq()));
            } else { // the agent keeps the frame and replays it after reconnecting
                log.warn("agent {}: frame {} of run {} could not be stored, closing the link: {}", connection.agentId(),
                        frame.seq(), frame.runId(), error.toString());
                session.close(CloseStatus.SERVER_ERROR.withReason(truncate(error.getMessage()))).subscribe();
            }
        }));
        // the next frame may follow at once, up to a window: group commit takes several of an agent's frames
        return Mono.fromFuture(connection.window(INGEST_WINDOW), true).then();
    }

    private Mono<Void> handleOther(AgentConnection connection, Object message) {
        String agentId = connection.agentId();
        if (message instanceof AgentMessage.RunMessage report) {
            return jdbc.call(() -> runs.report(agentId, report))
                    .flatMap(recorded -> recorded ? Mono.fromRunnable(() -> runEnded(connection, report.runId()))
                            : Mono.<Void>empty());
        }
        return Mono.fromRunnable(() -> log.warn("agent {} sent an unexpected {}", agentId, message.getClass().getSimpleName()));
    }

    private void heartbeat(AgentConnection connection, AgentMessage.Heartbeat beat) {
        if (beat.spooled() != null && beat.spoolBytes() != null) {
            connection.spool(beat.spooled(), beat.spoolBytes());
        }
        agents.heartbeat(connection.agentId()); // in memory: stored with the others every few seconds
    }

    private Mono<Void> welcome(AgentConnection connection, WebSocketSession session, AgentMessage.Hello hello,
                               AgentAdmission.Admitted admitted) {
        String agentId = hello.agentId();
        connection.presented(admitted.tokenSha256());
        connection.registeredAs(agentId);
        connection.facts(hello.facts());
        List<Long> known = hello.knownRuns() == null ? List.of() : hello.knownRuns();
        return jdbc.call(() -> {
            installation.id(); // read here, off the event loop, before the welcome needs it
            agents.registered(agentId, hello.facts() == null ? Map.of() : hello.facts());
            return runs.returned(agentId, hello.currentRun(), hello.preparedRun(), known);
        }).flatMap(returned -> {
            AgentRegistry.Registration registration = registry.register(connection, admitted.tokenSha256(),
                    admitted.checkedAt());
            if (registration.refused() == LinkClose.TOKEN_REVOKED) {
                return refuse(session, connection, LinkClose.TOKEN_REVOKED, "agent token revoked by an admin");
            }
            if (registration.refused() != null) { // a link with another token registered meanwhile
                return refuse(session, connection, LinkClose.ID_LIVE,
                        "agent '" + agentId + "' is connected already, with another token");
            }
            connection.busyWith(returned.busyWith());
            registration.replaced().ifPresent(AgentConnection::close);
            connection.send(new AgentMessage.Welcome(agentId, installation.id(), admitted.issuedToken()));
            returned.cancel().forEach(runId -> connection.send(new AgentMessage.CancelRun(runId)));
            log.info("agent {} registered from {}{}", agentId, connection.remote(),
                    hello.currentRun() == null ? "" : ", still running run " + hello.currentRun());
            events.publishEvent(new AgentReady(agentId));
            return Mono.<Void>empty();
        });
    }

    private Mono<Void> refuse(WebSocketSession session, AgentConnection connection, LinkClose close, String reason) {
        return refuse(session, connection, new CloseStatus(close.code()), reason);
    }

    private Mono<Void> refuse(WebSocketSession session, AgentConnection connection, CloseStatus status, String reason) {
        log.warn("refused agent connection from {}: {}", connection.remote(), reason);
        connection.refuse(); // not close(): its outbound ending would close the link before the status is sent
        return session.close(status.withReason(truncate(reason)));
    }

    /** A message about a run not assigned to this agent: nothing of it is stored, and the link is closed. */
    private Mono<Void> refuseRun(WebSocketSession session, AgentConnection connection, String what, long runId) {
        log.warn("agent {} from {} sent {} for run {}, which is not assigned to it: refused, nothing of it stored",
                connection.agentId(), connection.remote(), what, runId);
        connection.refuse();
        return session.close(new CloseStatus(LinkClose.NOT_ITS_RUN.code(), truncate("run " + runId
                + " is not assigned to agent '" + connection.agentId() + "'")));
    }

    private void runEnded(AgentConnection connection, long runId) {
        connection.send(new AgentMessage.RunRecorded(runId));
        if (Long.valueOf(runId).equals(connection.busyWith())) {
            connection.busyWith(null);
        }
        events.publishEvent(new AgentReady(connection.agentId()));
    }

    private void disconnected(AgentConnection connection) {
        if (registry.remove(connection)) {
            log.info("agent {} disconnected", connection.agentId());
            jdbc.run(() -> agents.disconnected(connection.agentId())).subscribe(v -> { },
                    e -> log.warn("could not mark agent {} disconnected: {}", connection.agentId(), e.toString()));
        }
    }

    private static String truncate(String reason) {
        // a close reason must fit in a control frame (123 bytes)
        String text = reason == null ? "error" : reason;
        while (text.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 123) {
            text = text.substring(0, text.length() - 1);
        }
        return text;
    }
}

package org.qplab.controller.agent;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.qplab.controller.TestIntervals;
import org.qplab.protocol.AgentMessage;
import org.qplab.protocol.IntervalFrame;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.web.reactive.socket.CloseStatus;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * An agent link driven by hand, as a hostile or broken agent would: it sends what it is told (any id, any token,
 * any run), keeps what the controller sends, and records how the link ended (a close status, or a refused upgrade).
 * The JDK's client, like the agent's own, sends no Origin header unless told to (Reactor Netty's always does).
 */
final class RawAgent implements AutoCloseable {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private final BlockingQueue<AgentMessage> received = new LinkedBlockingQueue<>();
    private final CompletableFuture<CloseStatus> closed = new CompletableFuture<>();
    private final AtomicInteger pings = new AtomicInteger();
    private final WebSocket socket;
    private final Throwable upgradeRefusal;

    private RawAgent(int port, String origin) {
        WebSocket.Builder builder = HTTP.newWebSocketBuilder().connectTimeout(Duration.ofSeconds(10));
        if (origin != null) {
            builder.header("Origin", origin);
        }
        WebSocket opened = null;
        Throwable refused = null;
        try {
            opened = builder.buildAsync(URI.create("ws://127.0.0.1:" + port + "/agent"), new Listener()).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            refused = e.getCause();
            closed.complete(null);
        } catch (Exception e) {
            throw new AssertionError("could not open a link to the controller", e);
        }
        socket = opened;
        upgradeRefusal = refused;
    }

    static RawAgent connect(int port) {
        return new RawAgent(port, null);
    }

    /** A link as a web page would open it: with its Origin. */
    static RawAgent connectWithOrigin(int port, String origin) {
        return new RawAgent(port, origin);
    }

    RawAgent hello(String agentId, String token) {
        return send(new AgentMessage.Hello(agentId, token, Map.of("hostname", agentId), null, List.of()));
    }

    /** Sends the message unless the link is closed (also when the controller's close crosses it: then it is lost). */
    synchronized RawAgent send(AgentMessage message) {
        if (socket != null && !closed.isDone()) {
            try {
                socket.sendText(JSON.writeValueAsString(message), true).join();
            } catch (java.util.concurrent.CompletionException e) {
                // the controller closed the link meanwhile
            }
        }
        return this;
    }

    /** Text as it is (a message of another release, say). */
    synchronized RawAgent sendRaw(String text) {
        if (socket != null && !closed.isDone()) {
            socket.sendText(text, true).join();
        }
        return this;
    }

    /** Binary as it is (a frame of another layout, say). */
    synchronized RawAgent sendRaw(ByteBuffer frame) {
        if (socket != null && !closed.isDone()) {
            // a copy in a big-endian buffer: the JDK client's masking reorders the bytes of a little-endian one
            byte[] bytes = new byte[frame.remaining()];
            frame.duplicate().get(bytes);
            try {
                socket.sendBinary(ByteBuffer.wrap(bytes), true).join();
            } catch (java.util.concurrent.CompletionException e) {
                // the controller closed the link meanwhile
            }
        }
        return this;
    }

    RawAgent send(IntervalFrame frame) {
        return sendRaw(frame.encode());
    }

    /** The next message of the type the controller sends; fails after the timeout, or when the link closed. */
    <T extends AgentMessage> T await(Class<T> type, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            AgentMessage next = received.poll(50, TimeUnit.MILLISECONDS);
            if (type.isInstance(next)) {
                return type.cast(next);
            }
            if (next == null && closed.isDone() && received.isEmpty()) {
                throw new AssertionError("the link closed (" + describe(closed.getNow(null)) + ") before a "
                        + type.getSimpleName() + " came");
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " within " + timeout);
    }

    /** How the controller closed the link; fails when it did not within the timeout, or the upgrade was refused. */
    CloseStatus awaitClose(Duration timeout) throws Exception {
        CloseStatus status = closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (status == null) {
            throw new AssertionError("the link ended without a close status: " + upgradeRefusal);
        }
        return status;
    }

    /**
     * Waits for the link's end: its close status, or null when it ended with an error instead (a send of ours racing
     * the peer's close: the reset of the connection can drop the close frame unread).
     */
    CloseStatus awaitEnd(Duration timeout) throws Exception {
        return closed.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The pings the controller has sent so far. */
    int pings() {
        return pings.get();
    }

    boolean isOpen() {
        return socket != null && !closed.isDone();
    }

    /** Why the WebSocket upgrade failed (null when it did not). */
    Throwable upgradeRefusal() {
        return upgradeRefusal;
    }

    /** The HTTP status the upgrade was answered with when it was refused (0 when it was not). */
    int refusedWithStatus() {
        return upgradeRefusal instanceof java.net.http.WebSocketHandshakeException e ? e.getResponse().statusCode() : 0;
    }

    @Override
    public void close() {
        if (socket != null) {
            socket.abort();
        }
    }

    /** A run of an experiment of its own, assigned to that agent id in that status, as a test stages it. */
    static long storedRun(JdbcClient jdbc, String status, String agentId) {
        long experimentId = jdbc.sql("INSERT INTO experiment (name, matrix, status) VALUES ('raw agent', '{}', ?) RETURNING id")
                .param(status).query(Long.class).single();
        return jdbc.sql("""
                        INSERT INTO run (experiment_id, idx, params, status, agent_id, attempt, started_at)
                        VALUES (?, 0, '{"provider": "tcp", "msg_size": 64}', ?, ?, 1, now()) RETURNING id""")
                .params(experimentId, status, agentId).query(Long.class).single();
    }

    /** A frame numbered seq: two cycles of thread 0 in its interval seq (10 ms each). */
    static IntervalFrame frame(long runId, long seq) {
        long t0 = seq * 10_000_000L;
        List<TestIntervals.Cycle> cycles = List.of(new TestIntervals.Cycle(0, t0, t0 + 1_000),
                new TestIntervals.Cycle(0, t0 + 1_000, t0 + 2_500));
        return IntervalFrame.of(runId, seq, List.of(), TestIntervals.of(cycles, 10_000_000L, 64, 1));
    }

    private static String describe(CloseStatus status) {
        return status == null ? "no status" : status.getCode() + " " + status.getReason();
    }

    private final class Listener implements WebSocket.Listener {
        private final StringBuilder text = new StringBuilder();

        @Override
        public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
            text.append(data);
            if (last) {
                received.add(JSON.readValue(text.toString(), AgentMessage.class));
                text.setLength(0);
            }
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onPing(WebSocket webSocket, ByteBuffer message) {
            pings.incrementAndGet();
            return WebSocket.Listener.super.onPing(webSocket, message); // the client answers with a pong
        }

        @Override
        public CompletionStage<?> onBinary(WebSocket webSocket, ByteBuffer data, boolean last) {
            webSocket.request(1);
            return null;
        }

        @Override
        public CompletionStage<?> onClose(WebSocket webSocket, int statusCode, String reason) {
            closed.complete(new CloseStatus(statusCode, reason));
            return null;
        }

        @Override
        public void onError(WebSocket webSocket, Throwable error) {
            closed.complete(null);
        }
    }
}

package org.qplab.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The agent's health and metrics over HTTP (--health-port; off unless given), for a process
 * supervisor, a container's probes and Prometheus:
 * <ul>
 *   <li>GET /health/liveness — 200 while the process serves requests;</li>
 *   <li>GET /health/readiness and /health — 200 when registered with the controller and the engine is
 *       not stuck (see EngineWatch; "engine" says why), else 503;</li>
 *   <li>GET /metrics — Prometheus text: qplab_agent_connected, qplab_agent_running (the run id or -1),
 *       qplab_agent_engine_stuck (1 while the engine takes no run until the agent restarts),
 *       qplab_agent_spool_entries (frames and run ends kept until the controller acknowledges
 *       them), qplab_agent_spool_bytes{where="memory"|"disk"}, qplab_agent_spooled_frames_total (frames
 *       that went to disk because memory was full), qplab_agent_runs_total.</li>
 * </ul>
 */
final class AgentHealth implements AutoCloseable {

    private final HttpServer server;

    interface State {
        boolean registered();

        long currentRunId();

        /** Why the engine takes no run (see EngineWatch), or null. */
        String engineStuck();

        int spooled();

        long spoolMemoryBytes();

        long spoolDiskBytes();

        long spilledFrames();

        long runsEnded();
    }

    private AgentHealth(HttpServer server) {
        this.server = server;
    }

    static AgentHealth start(String address, int port, String agentId, State state) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(address, port), 16);
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "qplab-health");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/health/liveness", ex -> reply(ex, 200, "application/json",
                "{\"status\":\"UP\",\"agent\":\"" + agentId + "\"}\n"));
        server.createContext("/health", ex -> {
            boolean registered = state.registered();
            String stuck = state.engineStuck();
            boolean up = registered && stuck == null;
            reply(ex, up ? 200 : 503, "application/json", "{\"status\":\"" + (up ? "UP" : "DOWN") + "\",\"agent\":\""
                    + agentId + "\",\"controller\":\"" + (registered ? "connected" : "not connected") + "\",\"engine\":\""
                    + (stuck == null ? "ok" : jsonText(stuck)) + "\",\"run\":"
                    + (state.currentRunId() < 0 ? "null" : state.currentRunId()) + ",\"spooled\":" + state.spooled() + "}\n");
        });
        server.createContext("/metrics", ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                gauge("qplab_agent_connected", "1 while registered with the controller", state.registered() ? 1 : 0)
                        + gauge("qplab_agent_running", "the run on the engine now, -1 when idle", state.currentRunId())
                        + gauge("qplab_agent_engine_stuck", "1 while the engine takes no run until the agent restarts",
                                state.engineStuck() == null ? 0 : 1)
                        + gauge("qplab_agent_spool_entries", "frames and run ends not yet acknowledged", state.spooled())
                        + "# HELP qplab_agent_spool_bytes bytes of unacknowledged frames and run ends, in memory and on disk\n"
                        + "# TYPE qplab_agent_spool_bytes gauge\n"
                        + "qplab_agent_spool_bytes{where=\"memory\"} " + state.spoolMemoryBytes() + "\n"
                        + "qplab_agent_spool_bytes{where=\"disk\"} " + state.spoolDiskBytes() + "\n"
                        + "# HELP qplab_agent_spooled_frames_total frames written to the disk spool (memory was full)\n"
                        + "# TYPE qplab_agent_spooled_frames_total counter\n"
                        + "qplab_agent_spooled_frames_total " + state.spilledFrames() + "\n"
                        + "# HELP qplab_agent_runs_total runs this agent has ended\n# TYPE qplab_agent_runs_total counter\n"
                        + "qplab_agent_runs_total " + state.runsEnded() + "\n"));
        server.start();
        return new AgentHealth(server);
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static String jsonText(String text) {
        return text.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String gauge(String name, String help, long value) {
        return "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n" + name + " " + value + "\n";
    }

    private static void reply(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** A State read from suppliers and the outbox. */
    static State of(java.util.function.BooleanSupplier registered, LongSupplier run, Supplier<String> stuck, Outbox outbox,
            LongSupplier ended) {
        return new State() {
            public boolean registered() {
                return registered.getAsBoolean();
            }

            public long currentRunId() {
                return run.getAsLong();
            }

            public String engineStuck() {
                return stuck.get();
            }

            public int spooled() {
                return outbox.size();
            }

            public long spoolMemoryBytes() {
                return outbox.memoryBytes();
            }

            public long spoolDiskBytes() {
                return outbox.diskBytes();
            }

            public long spilledFrames() {
                return outbox.spilled();
            }

            public long runsEnded() {
                return ended.getAsLong();
            }
        };
    }
}

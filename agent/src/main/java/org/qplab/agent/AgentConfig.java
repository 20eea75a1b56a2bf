package org.qplab.agent;

import java.net.URI;
import java.time.Duration;
import java.util.Map;

/**
 * How an agent reaches its controller. Each setting comes from a flag, else an environment
 * variable, else its default.
 *
 * @param controller WebSocket URL of the controller's agent gateway (--controller, QPLAB_CONTROLLER;
 *                   default ws://127.0.0.1:8080/agent)
 * @param token      the agent token the controller expects (--token, --token-file, QPLAB_AGENT_TOKEN; required)
 * @param agentId    this agent's name (--id, QPLAB_AGENT_ID; default the hostname)
 * @param heartbeat  heartbeat period (--heartbeat-seconds; default 5 s)
 * @param dataAddress the IPv4 address the server side of a pair run listens on (tcp: its data
 *                   connections; verbs: its control socket, by default the IPv4 address of its RoCE GID)
 *                   (--data-address, QPLAB_DATA_ADDRESS; default: the address this host reaches the
 *                   controller from, i.e. the interface the route to the controller leaves by)
 * @param healthPort  where /health and /metrics are served (--health-port, QPLAB_AGENT_HEALTH_PORT; -1 = off,
 *                   the default; 0 = any free port, logged)
 * @param healthAddress the address they are served on (--health-address; default 127.0.0.1)
 */
public record AgentConfig(URI controller, String token, String agentId, Duration heartbeat, String dataAddress,
                          int healthPort, String healthAddress) {

    AgentConfig(URI controller, String token, String agentId, Duration heartbeat, String dataAddress) {
        this(controller, token, agentId, heartbeat, dataAddress, -1, "127.0.0.1");
    }

    static final String USAGE = """
            usage: java -jar qplab-agent.jar [--controller ws://HOST:PORT/agent] [--token TOKEN | --token-file F] [--id NAME]
              --controller  controller's agent endpoint  (env QPLAB_CONTROLLER, default ws://127.0.0.1:8080/agent)
              --token       agent token                  (env QPLAB_AGENT_TOKEN, required)
              --token-file  read the agent token from this file (keeps it out of the process list)
              --id          agent id                     (env QPLAB_AGENT_ID, default: hostname)
              --heartbeat-seconds N                      (default 5)
              --data-address A  where a pair run's tcp server listens (env QPLAB_DATA_ADDRESS,
                                default: the address the route to the controller leaves from)
              --health-port P   serve /health, /health/readiness, /health/liveness and /metrics (Prometheus)
                                on P (env QPLAB_AGENT_HEALTH_PORT; 0 = any free port; default: off)
              --health-address A  where to serve them (default 127.0.0.1)
            """;

    static AgentConfig parse(String[] args, Map<String, String> env, String hostname) {
        String controller = env.getOrDefault("QPLAB_CONTROLLER", "ws://127.0.0.1:8080/agent");
        String token = env.get("QPLAB_AGENT_TOKEN");
        String id = env.getOrDefault("QPLAB_AGENT_ID", hostname);
        String dataAddress = env.get("QPLAB_DATA_ADDRESS");
        long heartbeat = 5;
        int healthPort = env.containsKey("QPLAB_AGENT_HEALTH_PORT") ? port(env.get("QPLAB_AGENT_HEALTH_PORT")) : -1;
        String healthAddress = "127.0.0.1";
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + flag + " needs a value\n" + USAGE);
            }
            String value = args[++i];
            switch (flag) {
                case "--controller" -> controller = value;
                case "--token" -> token = value;
                case "--token-file" -> token = readToken(value);
                case "--id" -> id = value;
                case "--heartbeat-seconds" -> heartbeat = Long.parseLong(value);
                case "--data-address" -> dataAddress = value;
                case "--health-port" -> healthPort = port(value);
                case "--health-address" -> healthAddress = value;
                default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
            }
        }
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("no agent token: pass --token or set QPLAB_AGENT_TOKEN "
                    + "(the controller logs the token it expects at start-up)\n" + USAGE);
        }
        URI uri = URI.create(controller);
        if (!"ws".equals(uri.getScheme()) && !"wss".equals(uri.getScheme())) {
            throw new IllegalArgumentException("--controller must be a ws:// or wss:// URL, got " + controller);
        }
        if (dataAddress != null && !dataAddress.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("--data-address must be an IPv4 address, got " + dataAddress);
        }
        return new AgentConfig(uri, token, id, Duration.ofSeconds(heartbeat), dataAddress, healthPort, healthAddress);
    }

    private static int port(String value) {
        try {
            int port = Integer.parseInt(value.strip());
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--health-port must be a port number 0-65535, got " + value);
    }

    private static String readToken(String file) {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of(file)).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + e);
        }
    }
}

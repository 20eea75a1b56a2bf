package org.qplab.agent;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * How an agent reaches its controller. Each setting comes from a flag, else an environment
 * variable, else its default.
 *
 * @param controller WebSocket URL of the controller's agent gateway (--controller, QPLAB_CONTROLLER;
 *                   default ws://127.0.0.1:8080/agent)
 * @param token      the token to present (--token-file, else QPLAB_AGENT_TOKEN; required): the enrolment secret, with
 *                   which a new agent id enrols and is issued a token of its own, or a token of its own from an
 *                   admin or a deploy. Never a flag value: the process list shows argv to every local user
 * @param agentId    this agent's name (--id, QPLAB_AGENT_ID; default the hostname)
 * @param heartbeat  heartbeat period (--heartbeat-seconds; default 5 s)
 * @param dataAddress the IPv4 address the server side of a pair run listens on (tcp: its data
 *                   connections; verbs: its control socket, by default the IPv4 address of its RoCE GID)
 *                   (--data-address, QPLAB_DATA_ADDRESS; default: the address this host reaches the
 *                   controller from, i.e. the interface the route to the controller leaves by)
 * @param healthPort  where /health and /metrics are served (--health-port, QPLAB_AGENT_HEALTH_PORT; -1 = off,
 *                   the default; 0 = any free port, logged)
 * @param healthAddress the address they are served on (--health-address; default 127.0.0.1)
 * @param spoolDir   where sample frames and run ends wait for the controller's acknowledgement once
 *                   memory is full, and across agent restarts (--spool-dir, QPLAB_AGENT_SPOOL; default
 *                   STATE_DIR/spool, i.e. ~/.local/share/qplab/agent/ID/spool)
 * @param stateDir   what the agent keeps across restarts: the token the controller issued it when it enrolled
 *                   ({@link AgentCredentials}, a 0600 file) and, unless --spool-dir says otherwise, the spool
 *                   (--state-dir, QPLAB_AGENT_STATE; default $XDG_DATA_HOME/qplab/agent/ID, i.e.
 *                   ~/.local/share/qplab/agent/ID)
 * @param spoolMemoryBytes how many bytes of frames wait in memory before the spool takes them
 *                   (--spool-memory-mb; default 64 MiB)
 * @param caFile     a PEM file of certificates a wss:// controller may present, its own self-signed one or the CA
 *                   that signed it, trusted besides the JDK's trust store (--ca-file, QPLAB_CA_FILE; default none:
 *                   the JDK's trust store only). The host name is checked either way
 * @param nvmeofBacking files and block devices nvmeof runs may use as backing (backing file or device; their
 *                   backing_path must be one of these) (--nvmeof-backing PATH, repeatable, else QPLAB_NVMEOF_BACKING,
 *                   colon-separated; default none: only null_blk)
 */
public record AgentConfig(URI controller, String token, String agentId, Duration heartbeat, String dataAddress,
                          int healthPort, String healthAddress, Path spoolDir, Path stateDir, long spoolMemoryBytes,
                          Path caFile, List<String> nvmeofBacking) {

    public AgentConfig {
        nvmeofBacking = List.copyOf(nvmeofBacking);
    }

    static final long DEFAULT_SPOOL_MEMORY = 64L << 20;

    static final String USAGE = """
            usage: java -jar qplab-agent.jar [--controller ws://HOST:PORT/agent] [--token-file F] [--id NAME]
              --controller  controller's agent endpoint  (env QPLAB_CONTROLLER, default ws://127.0.0.1:8080/agent;
                            wss://HOST:PORT/agent for a controller on HTTPS)
              --ca-file F   trust the PEM certificate(s) in F for wss:// besides the JDK's trust store: the
                            controller's self-signed certificate or its CA (env QPLAB_CA_FILE)
              --token-file  read the token from this file (mode 0600; else env QPLAB_AGENT_TOKEN; required): the
                            enrolment secret (a new agent id is issued its own token, kept in STATE_DIR), or
                            a token of this agent's own
              --id          agent id                     (env QPLAB_AGENT_ID, default: hostname)
              --heartbeat-seconds N                      (default 5)
              --data-address A  where a pair run's tcp server listens (env QPLAB_DATA_ADDRESS,
                                default: the address the route to the controller leaves from)
              --health-port P   serve /health, /health/readiness, /health/liveness and /metrics (Prometheus)
                                on P (env QPLAB_AGENT_HEALTH_PORT; 0 = any free port; default: off)
              --health-address A  where to serve them (default 127.0.0.1)
              --state-dir D     where the agent keeps the token the controller issued it at enrolment (a 0600
                                file) and its spool (env QPLAB_AGENT_STATE, default ~/.local/share/qplab/agent/ID)
              --spool-dir D     where unacknowledged samples wait once memory is full and across restarts
                                (env QPLAB_AGENT_SPOOL, default STATE_DIR/spool)
              --spool-memory-mb N  MiB of samples kept in memory before the spool takes them (default 64)
              --nvmeof-backing PATH  a file or block device nvmeof runs may use as backing (backing_path);
                                repeatable (env QPLAB_NVMEOF_BACKING, colon-separated; default: none, null_blk only)
            """;

    static AgentConfig parse(String[] args, Map<String, String> env, String hostname) {
        String controller = env.getOrDefault("QPLAB_CONTROLLER", "ws://127.0.0.1:8080/agent");
        String token = env.get("QPLAB_AGENT_TOKEN");
        String id = env.getOrDefault("QPLAB_AGENT_ID", hostname);
        String dataAddress = env.get("QPLAB_DATA_ADDRESS");
        long heartbeat = 5;
        int healthPort = env.containsKey("QPLAB_AGENT_HEALTH_PORT") ? port(env.get("QPLAB_AGENT_HEALTH_PORT")) : -1;
        String healthAddress = "127.0.0.1";
        String spoolDir = env.get("QPLAB_AGENT_SPOOL");
        String stateDir = env.get("QPLAB_AGENT_STATE");
        long spoolMemory = DEFAULT_SPOOL_MEMORY;
        String caFile = env.get("QPLAB_CA_FILE");
        List<String> backing = new ArrayList<>();
        String backingEnv = env.get("QPLAB_NVMEOF_BACKING");
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                throw new IllegalArgumentException(USAGE);
            }
            if (flag.equals("--token") || flag.startsWith("--token=")) {
                throw new IllegalArgumentException("--token is not taken: a token in argv is shown to every local user "
                        + "by ps; pass --token-file FILE (mode 0600) or set QPLAB_AGENT_TOKEN\n" + USAGE);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("flag " + flag + " needs a value\n" + USAGE);
            }
            String value = args[++i];
            switch (flag) {
                case "--controller" -> controller = value;
                case "--token-file" -> token = readToken(value);
                case "--id" -> id = value;
                case "--heartbeat-seconds" -> heartbeat = Long.parseLong(value);
                case "--data-address" -> dataAddress = value;
                case "--health-port" -> healthPort = port(value);
                case "--health-address" -> healthAddress = value;
                case "--spool-dir" -> spoolDir = value;
                case "--state-dir" -> stateDir = value;
                case "--spool-memory-mb" -> spoolMemory = mebibytes(value);
                case "--ca-file" -> caFile = value;
                case "--nvmeof-backing" -> backing.add(value);
                default -> throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
            }
        }
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("no agent token: pass --token-file FILE or set QPLAB_AGENT_TOKEN (the "
                    + "shared token is qplab.agents.token, or the file the controller names at start-up; an agent's own "
                    + "token comes from POST /api/agents/{id}/token)\n" + USAGE);
        }
        URI uri = URI.create(controller);
        if (!"ws".equals(uri.getScheme()) && !"wss".equals(uri.getScheme())) {
            throw new IllegalArgumentException("--controller must be a ws:// or wss:// URL, got " + controller);
        }
        if (dataAddress != null && !dataAddress.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("--data-address must be an IPv4 address, got " + dataAddress);
        }
        if (!id.matches("[A-Za-z0-9._:-]{1,128}")) {
            throw new IllegalArgumentException("--id must be 1-128 characters of A-Z a-z 0-9 . _ : -, got " + id);
        }
        if (backing.isEmpty() && backingEnv != null) {
            Arrays.stream(backingEnv.split(":")).filter(p -> !p.isBlank()).forEach(backing::add);
        }
        for (String path : backing) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("--nvmeof-backing must be an absolute path (a file or block device), got "
                        + path);
            }
        }
        Path state = stateDir != null ? Path.of(stateDir) : dataHome(env).resolve("qplab").resolve("agent").resolve(id);
        Path spool = spoolDir != null ? Path.of(spoolDir) : state.resolve("spool");
        return new AgentConfig(uri, token, id, Duration.ofSeconds(heartbeat), dataAddress, healthPort, healthAddress,
                spool.toAbsolutePath(), state.toAbsolutePath(), spoolMemory,
                caFile == null || caFile.isBlank() ? null : Path.of(caFile), backing.stream().distinct().toList());
    }

    private static Path dataHome(Map<String, String> env) {
        String xdg = env.get("XDG_DATA_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg);
        }
        return Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".local", "share");
    }

    private static long mebibytes(String value) {
        try {
            long mib = Long.parseLong(value.strip());
            if (mib >= 0 && mib <= (1L << 20)) {
                return mib << 20;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--spool-memory-mb must be a number of MiB (0 = everything to disk), got " + value);
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

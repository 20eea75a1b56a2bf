package org.qplab.agent;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How an agent reaches its controller, and what it keeps where. Each setting comes from a flag, else an environment
 * variable, else its default: {@link AgentOption} names them all, with their defaults and meanings.
 *
 * @param controller       {@link AgentOption#CONTROLLER}: the first of controllers
 * @param token            {@link AgentOption#TOKEN_FILE}: the token itself
 * @param agentId          {@link AgentOption#ID}
 * @param heartbeat        {@link AgentOption#HEARTBEAT_SECONDS}
 * @param dataAddress      {@link AgentOption#DATA_ADDRESS}; null: the address the route to the controller leaves from,
 *                         found once connected
 * @param healthPort       {@link AgentOption#HEALTH_PORT}
 * @param healthAddress    {@link AgentOption#HEALTH_ADDRESS}
 * @param spoolDir         {@link AgentOption#SPOOL_DIR}
 * @param stateDir         {@link AgentOption#STATE_DIR}: what the agent keeps across restarts
 *                         ({@link AgentCredentials})
 * @param spoolMemoryBytes {@link AgentOption#SPOOL_MEMORY_MB}, in bytes
 * @param caFile           {@link AgentOption#CA_FILE}; null: the JDK's trust store only
 * @param nvmeofBacking    {@link AgentOption#NVMEOF_BACKING}
 * @param controllers      {@link AgentOption#CONTROLLER}, every URL given (comma-separated): the link tries the next
 *                         when one cannot be reached (controllers sharing one database); null or empty: controller
 */
public record AgentConfig(URI controller, String token, String agentId, Duration heartbeat, String dataAddress,
                          int healthPort, String healthAddress, Path spoolDir, Path stateDir, long spoolMemoryBytes,
                          Path caFile, List<String> nvmeofBacking, List<URI> controllers) {

    public AgentConfig {
        nvmeofBacking = List.copyOf(nvmeofBacking);
        controllers = controllers == null || controllers.isEmpty() ? List.of(controller) : List.copyOf(controllers);
    }

    static final String USAGE = AgentOption.usage();

    static AgentConfig parse(String[] args, Map<String, String> env, String hostname) {
        Map<AgentOption, String> flags = new EnumMap<>(AgentOption.class);
        List<String> backing = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            Optional<AgentOption> option = AgentOption.ofFlag(flag);
            if (option.isPresent() && option.get() == AgentOption.HELP) {
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
            if (option.isEmpty()) {
                throw new IllegalArgumentException("unknown flag " + flag + "\n" + USAGE);
            }
            if (option.get() == AgentOption.NVMEOF_BACKING) {
                backing.add(value);
            } else {
                flags.put(option.get(), value);
            }
        }
        Settings settings = new Settings(flags, env);
        String token = flags.containsKey(AgentOption.TOKEN_FILE) ? readToken(flags.get(AgentOption.TOKEN_FILE))
                : env.get(AgentOption.TOKEN_FILE.env());
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("no agent token: pass --token-file FILE or set QPLAB_AGENT_TOKEN (the "
                    + "shared token is qplab.agents.token, or the file the controller names at start-up; an agent's own "
                    + "token comes from POST /api/agents/{id}/token)\n" + USAGE);
        }
        List<URI> controllers = new ArrayList<>();
        for (String controller : settings.get(AgentOption.CONTROLLER).split(",")) {
            URI each = URI.create(controller.strip());
            if (!"ws".equals(each.getScheme()) && !"wss".equals(each.getScheme())) {
                throw new IllegalArgumentException("--controller must be a ws:// or wss:// URL (or several, comma-"
                        + "separated), got " + controller.strip());
            }
            controllers.add(each);
        }
        URI uri = controllers.get(0);
        String dataAddress = settings.get(AgentOption.DATA_ADDRESS);
        if (dataAddress != null && !dataAddress.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("--data-address must be an IPv4 address, got " + dataAddress);
        }
        String id = settings.get(AgentOption.ID);
        id = id != null ? id : hostname;
        if (!id.matches("[A-Za-z0-9._:-]{1,128}")) {
            throw new IllegalArgumentException("--id must be 1-128 characters of A-Z a-z 0-9 . _ : -, got " + id);
        }
        String backingEnv = env.get(AgentOption.NVMEOF_BACKING.env());
        if (backing.isEmpty() && backingEnv != null) {
            Arrays.stream(backingEnv.split(":")).filter(p -> !p.isBlank()).forEach(backing::add);
        }
        for (String path : backing) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("--nvmeof-backing must be an absolute path (a file or block device), got "
                        + path);
            }
        }
        String stateDir = settings.get(AgentOption.STATE_DIR);
        String spoolDir = settings.get(AgentOption.SPOOL_DIR);
        Path state = stateDir != null ? Path.of(stateDir) : dataHome(env).resolve("qplab").resolve("agent").resolve(id);
        Path spool = spoolDir != null ? Path.of(spoolDir) : state.resolve("spool");
        String caFile = settings.get(AgentOption.CA_FILE);
        Duration heartbeat = Duration.ofSeconds(Long.parseLong(settings.get(AgentOption.HEARTBEAT_SECONDS)));
        return new AgentConfig(uri, token, id, heartbeat, dataAddress, port(settings.get(AgentOption.HEALTH_PORT)),
                settings.get(AgentOption.HEALTH_ADDRESS), spool.toAbsolutePath(), state.toAbsolutePath(),
                mebibytes(settings.get(AgentOption.SPOOL_MEMORY_MB)),
                caFile == null || caFile.isBlank() ? null : Path.of(caFile), backing.stream().distinct().toList(),
                controllers);
    }

    /** A setting's value: its flag's, else its environment variable's, else its default (null: none). */
    private record Settings(Map<AgentOption, String> flags, Map<String, String> env) {
        String get(AgentOption option) {
            if (flags.containsKey(option)) {
                return flags.get(option);
            }
            if (option.env() != null && env.containsKey(option.env())) {
                return env.get(option.env());
            }
            return option.defaultValue();
        }
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
            if (port >= -1 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--health-port must be a port number 0-65535 (-1: off), got " + value);
    }

    private static String readToken(String file) {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of(file)).strip();
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read the token file " + file + ": " + e);
        }
    }
}

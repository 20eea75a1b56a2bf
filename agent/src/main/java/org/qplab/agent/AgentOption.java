package org.qplab.agent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.qplab.engine.Engine;

/**
 * Every setting of the agent, each in one place: its flag, the environment variable it answers to when the flag is
 * not given, its default and what it means. {@link AgentConfig#parse} reads the settings through this table, --help
 * prints it, and docs/configuration.md is generated from it (the controller's ConfigurationReferenceTests).
 */
public enum AgentOption {

    CONTROLLER("--controller", "URL", "QPLAB_CONTROLLER", "ws://127.0.0.1:8080/agent", null,
            "the controller's agent endpoint; wss://HOST:PORT/agent for a controller on HTTPS; several, comma-"
                    + "separated, for controllers sharing one database: one that cannot be reached is left for the next"),
    CA_FILE("--ca-file", "FILE", "QPLAB_CA_FILE", null, "none: the JDK's trust store only",
            "PEM certificate(s) a wss:// controller may present (its own self-signed one, or the CA that signed it), "
                    + "trusted besides the JDK's trust store; the host name is checked either way"),
    TOKEN_FILE("--token-file", "FILE", "QPLAB_AGENT_TOKEN", null, "none: required",
            "the token to present: the flag names a file (mode 0600) holding it, the variable holds it. The enrolment "
                    + "secret (a new agent id is issued a token of its own, kept in STATE_DIR) or a token of this "
                    + "agent's own. Never a flag value (--token is refused): ps shows argv to every local user"),
    ID("--id", "NAME", "QPLAB_AGENT_ID", null, "the hostname",
            "this agent's id, 1-128 characters of A-Z a-z 0-9 . _ : -"),
    HEARTBEAT_SECONDS("--heartbeat-seconds", "N", null, "5", null, "seconds between heartbeats"),
    DATA_ADDRESS("--data-address", "A", "QPLAB_DATA_ADDRESS", null,
            "the address this host reaches the controller from (where the route to it leaves)",
            "the IPv4 address the server side of a pair run listens on (tcp: its data connections; verbs: its "
                    + "control socket)"),
    HEALTH_PORT("--health-port", "P", "QPLAB_AGENT_HEALTH_PORT", "-1", null,
            "serve /health, /health/readiness, /health/liveness and /metrics (Prometheus) on P; -1: off, 0: any "
                    + "free port (logged)"),
    HEALTH_ADDRESS("--health-address", "A", null, "127.0.0.1", null, "the address they are served on"),
    STATE_DIR("--state-dir", "DIR", "QPLAB_AGENT_STATE", null,
            "$XDG_DATA_HOME/qplab/agent/ID, i.e. ~/.local/share/qplab/agent/ID",
            "what the agent keeps across restarts: the token the controller issued it at enrolment (a 0600 file) "
                    + "and, unless --spool-dir says otherwise, its spool"),
    SPOOL_DIR("--spool-dir", "DIR", "QPLAB_AGENT_SPOOL", null, "STATE_DIR/spool",
            "where frames and run ends wait for the controller's acknowledgement once memory is full, and "
                    + "across restarts"),
    SPOOL_MEMORY_MB("--spool-memory-mb", "N", null, "64", null,
            "MiB of frames kept in memory before the spool takes them; 0: everything to disk"),
    NVMEOF_BACKING("--nvmeof-backing", "PATH", "QPLAB_NVMEOF_BACKING", null, "none: null_blk only",
            "an absolute path of a file or block device nvmeof runs may use as backing (their backing_path); the "
                    + "flag is repeatable and wins over the variable, which is colon-separated"),
    ENGINE_LIBRARY(null, "PATH", Engine.LIBRARY_ENV, null, "the libqpbench.so in the agent jar",
            "another build of the native engine (also the system property " + Engine.LIBRARY_PROPERTY + ")"),
    HELP("--help", null, null, null, null, "print this and exit (also -h)");

    private final String flag;
    private final String value;
    private final String env;
    private final String defaultValue;
    private final String whenUnset;
    private final String meaning;

    /**
     * @param flag         the flag, or null for a setting only the environment gives
     * @param value        what the flag's value is called in the help, or null for a flag without a value
     * @param env          the environment variable, or null for a flag only
     * @param defaultValue the value when neither gives one, as the flag would take it; null when the default is
     *                     derived (whenUnset says how) or there is none
     * @param whenUnset    what holds when neither gives a value and there is no literal default, or null
     * @param meaning      what the setting does
     */
    AgentOption(String flag, String value, String env, String defaultValue, String whenUnset, String meaning) {
        this.flag = flag;
        this.value = value;
        this.env = env;
        this.defaultValue = defaultValue;
        this.whenUnset = whenUnset;
        this.meaning = meaning;
    }

    public String flag() {
        return flag;
    }

    public String value() {
        return value;
    }

    public String env() {
        return env;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String whenUnset() {
        return whenUnset;
    }

    public String meaning() {
        return meaning;
    }

    /** The option a command-line argument names, -h included. */
    static Optional<AgentOption> ofFlag(String argument) {
        if (argument.equals("-h")) {
            return Optional.of(HELP);
        }
        return Arrays.stream(values()).filter(o -> argument.equals(o.flag)).findFirst();
    }

    /** The help text: every flag and environment variable with its default. */
    static String usage() {
        StringBuilder usage = new StringBuilder(
                "usage: java -jar qplab-agent.jar [--controller URL] [--token-file FILE] [--id NAME] [FLAG VALUE]...\n");
        for (AgentOption option : values()) {
            String head = option.flag == null ? "env " + option.env
                    : option.value == null ? option.flag : option.flag + " " + option.value;
            List<String> notes = new ArrayList<>();
            if (option.flag != null && option.env != null) {
                notes.add("env " + option.env);
            }
            if (option.defaultValue != null || option.whenUnset != null) {
                notes.add("default " + (option.defaultValue != null ? option.defaultValue : option.whenUnset));
            }
            String line = option.meaning + (notes.isEmpty() ? "" : " (" + String.join("; ", notes) + ")");
            usage.append("  ").append(head).append('\n');
            wrap(usage, line, "      ", 100);
        }
        return usage.toString();
    }

    private static void wrap(StringBuilder out, String text, String indent, int width) {
        StringBuilder line = new StringBuilder(indent);
        for (String word : text.split(" ")) {
            if (line.length() > indent.length() && line.length() + 1 + word.length() > width) {
                out.append(line).append('\n');
                line = new StringBuilder(indent);
            }
            line.append(line.length() > indent.length() ? " " : "").append(word);
        }
        out.append(line).append('\n');
    }
}

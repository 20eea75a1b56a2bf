package org.qplab.controller.experiment;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.agent.nvmeof.NvmeofSpec;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The run parameters a matrix may set: the native engine's spec keys (agent/src/main/c/qpb.h) and the nvmeof
 * provider's (fio's, org.qplab.agent.nvmeof.NvmeofSpec), each with the type a matrix writes it in (sizes also
 * as "4K"; choices by name, so that a typo in an exclude is caught). Their limits and the rules between them
 * are the engine's, or NvmeofSpec's for an nvmeof point: every expanded point goes through one of their checks
 * ({@link SpecCheck}). role, bind and port are the controller's to choose.
 */
public enum Parameter {
    PROVIDER("provider", Kind.CHOICE, List.of("tcp", "verbs", "nvmeof")),
    OP("op", Kind.CHOICE, List.of("send", "write", "read", "atomic_fadd", "atomic_cswap")),
    /** bw (the default) or latency: perftest's *_lat, one ping-pong per thread, cycle time = its latency. */
    MODE("mode", Kind.CHOICE, List.of("bw", "latency")),
    THREADS("threads", Kind.INT),
    QPS_PER_THREAD("qps_per_thread", Kind.INT),
    MSG_SIZE("msg_size", Kind.SIZE),
    ITERATIONS("iterations", Kind.INT),
    DURATION_MS("duration_ms", Kind.INT),
    WARMUP_CYCLES("warmup_cycles", Kind.INT),
    /** Cycles per second per thread, 0 = unpaced (both providers pace in software). */
    RATE_LIMIT("rate_limit", Kind.INT),
    TX_DEPTH("tx_depth", Kind.INT),
    /** How often each thread closes an interval record (the run's statistics, every cycle counted). */
    INTERVAL_MS("interval_ms", Kind.INT),
    /** Per-cycle trace records kept per thread, at most (0: none, the default). */
    TRACE_FIRST("trace_first", Kind.INT),
    /** ... of every K-th cycle (alone: up to the run's bound shared by its threads). */
    TRACE_EVERY("trace_every", Kind.INT),
    /** Trace records buffered per thread until the agent drains them (a full buffer drops and counts them). */
    RING_CAPACITY("ring_capacity", Kind.INT),
    VERIFY("verify", Kind.BOOL),
    /** Both sides send at once (perftest -b; pair runs, op send or write); each side's summary is what it sent. */
    BIDIRECTIONAL("bidirectional", Kind.BOOL),
    TCP_NODELAY("tcp_nodelay", Kind.BOOL),
    // The verbs provider's knobs (qpb.h); the tcp provider refuses them at anything but their default.
    DEVICE("device", Kind.TEXT, List.of(), ""),
    IB_PORT("ib_port", Kind.INT, List.of(), 1L),
    GID_INDEX("gid_index", Kind.INT, List.of(), -1L),
    /** verbs: rc (its default), uc, ud, xrc; nvmeof: rdma (its default), tcp, local (no fabric: on the target host). */
    TRANSPORT("transport", Kind.CHOICE, List.of("rc", "uc", "ud", "xrc", "rdma", "tcp", "local"), "rc"),
    SRQ("srq", Kind.CHOICE, List.of("none", "per_thread", "shared"), "none"),
    INLINE_SIZE("inline_size", Kind.SIZE, List.of(), 0L),
    SIGNAL_EVERY("signal_every", Kind.INT, List.of(), 1L),
    POST_LIST("post_list", Kind.INT, List.of(), 1L),
    RX_DEPTH("rx_depth", Kind.INT, List.of(), 512L),
    CQ_MODE("cq_mode", Kind.CHOICE, List.of("per_qp", "per_thread", "shared"), "per_thread"),
    MR_MODE("mr_mode", Kind.CHOICE, List.of("per_thread", "per_qp"), "per_thread"),
    POLLING("polling", Kind.CHOICE, List.of("busy", "event"), "busy"),
    LOCK_MODEL("lock_model", Kind.CHOICE, List.of("shared", "thread_domain"), "shared"),
    MTU("mtu", Kind.INT, List.of(), 0L),
    RDMA_CM("rdma_cm", Kind.BOOL, List.of(), false),
    QP_SHARING("qp_sharing", Kind.CHOICE, List.of("per_thread", "shared"), "per_thread"),
    // The nvmeof provider's keys (fio on NVMe-oF; their ranges and rules: org.qplab.agent.nvmeof.NvmeofSpec).
    BACKING("backing", Kind.CHOICE, NvmeofSpec.BACKINGS, Provider.NVMEOF),
    /** A file or block device the target host lists (its agent's --nvmeof-backing). */
    BACKING_PATH("backing_path", Kind.TEXT, List.of(), Provider.NVMEOF),
    BACKING_SIZE("backing_size", Kind.SIZE, List.of(), Provider.NVMEOF),
    RW("rw", Kind.CHOICE, NvmeofSpec.RWS, Provider.NVMEOF),
    RWMIXREAD("rwmixread", Kind.INT, List.of(), Provider.NVMEOF),
    BS("bs", Kind.SIZE, List.of(), Provider.NVMEOF),
    IODEPTH("iodepth", Kind.INT, List.of(), Provider.NVMEOF),
    NUMJOBS("numjobs", Kind.INT, List.of(), Provider.NVMEOF),
    IOENGINE("ioengine", Kind.CHOICE, NvmeofSpec.IOENGINES, Provider.NVMEOF),
    /** fio --runtime (time based); nvmeof's default 10000 when size is unset. */
    RUNTIME_MS("runtime_ms", Kind.INT, List.of(), Provider.NVMEOF),
    /** fio --size: bytes per job, not time based. */
    SIZE("size", Kind.SIZE, List.of(), Provider.NVMEOF),
    DIRECT("direct", Kind.BOOL, List.of(), Provider.NVMEOF);

    /** The nvmeof provider: fio on NVMe-oF, checked by NvmeofSpec rather than the engine. */
    public static final String NVMEOF = NvmeofSpec.PROVIDER;

    /** Marks a parameter as the nvmeof provider's alone. */
    private enum Provider { NVMEOF }

    enum Kind { INT, SIZE, BOOL, CHOICE, TEXT }

    /**
     * Connections a tcp run may open in all (each costs two descriptors in loopback): the controller's
     * limit on what one run may ask of a host, which the engine does not know.
     */
    public static final long MAX_CONNECTIONS_PER_RUN = 65_536;

    private static final Pattern SIZE_TEXT = Pattern.compile("(\\d+)\\s*(|B|K|KB|KIB|M|MB|MIB|G|GB|GIB)");

    private final String key;
    private final Kind kind;
    private final List<String> choices;
    /** The engine's default for a verbs-only knob; null for parameters every provider takes. */
    private final Object verbsDefault;
    private final boolean nvmeofOnly;

    Parameter(String key, Kind kind) {
        this(key, kind, List.of(), null, false);
    }

    Parameter(String key, Kind kind, List<String> choices) {
        this(key, kind, choices, null, false);
    }

    Parameter(String key, Kind kind, List<String> choices, Object verbsDefault) {
        this(key, kind, choices, verbsDefault, false);
    }

    Parameter(String key, Kind kind, List<String> choices, Provider only) {
        this(key, kind, choices, null, only == Provider.NVMEOF);
    }

    Parameter(String key, Kind kind, List<String> choices, Object verbsDefault, boolean nvmeofOnly) {
        this.key = key;
        this.kind = kind;
        this.choices = choices;
        this.verbsDefault = verbsDefault;
        this.nvmeofOnly = nvmeofOnly;
    }

    /** True for the nvmeof provider's keys (fio's), which the native engine does not know. */
    public boolean nvmeofOnly() {
        return nvmeofOnly;
    }

    /** Whether a point (its provider) is an nvmeof run. */
    public static boolean nvmeof(java.util.Map<String, Object> point) {
        return NVMEOF.equals(point.get(PROVIDER.key));
    }

    /** True for knobs only the verbs provider has. */
    public boolean verbsOnly() {
        return verbsDefault != null;
    }

    /** The engine's default of a verbs-only knob (the tcp provider accepts only this value). */
    public Object verbsDefault() {
        return verbsDefault;
    }

    public String key() {
        return key;
    }

    Kind kind() {
        return kind;
    }

    List<String> choices() {
        return choices;
    }

    public static Optional<Parameter> byKey(String key) {
        return Arrays.stream(values()).filter(p -> p.key.equals(key)).findFirst();
    }

    public static String knownKeys() {
        return String.join(", ", Arrays.stream(values()).map(Parameter::key).toList());
    }

    /** True for parameters whose values are numbers (usable as a curve axis). */
    public boolean numeric() {
        return kind == Kind.INT || kind == Kind.SIZE;
    }

    /**
     * Converts one matrix value to the engine's type, or explains why it is not one. Sizes also accept
     * binary suffixes: "4K", "64KiB", "1M". Whether the engine takes the value is the engine's to say.
     */
    public Object parse(JsonNode value, String field, List<Violation> violations) {
        switch (kind) {
            case BOOL -> {
                if (value.isBoolean()) {
                    return value.booleanValue();
                }
                violations.add(new Violation(field, "must be true or false, got " + value));
                return null;
            }
            case CHOICE -> {
                if (value.isString() && choices.contains(value.stringValue())) {
                    return value.stringValue();
                }
                violations.add(new Violation(field, "must be one of " + choices + ", got " + value));
                return null;
            }
            case TEXT -> {
                if (value.isString()) {
                    return value.stringValue();
                }
                violations.add(new Violation(field, "must be a string, got " + value));
                return null;
            }
            default -> {
                Long number = number(value);
                if (number == null) {
                    violations.add(new Violation(field, kind == Kind.SIZE
                            ? "must be a size in bytes (an integer, or like \"4K\", \"1MiB\"), got " + value
                            : "must be an integer, got " + value));
                }
                return number;
            }
        }
    }

    private Long number(JsonNode value) {
        if (value.isIntegralNumber() && value.canConvertToLong()) {
            return value.longValue();
        }
        if (kind == Kind.SIZE && value.isString()) {
            Matcher m = SIZE_TEXT.matcher(value.stringValue().trim().toUpperCase(Locale.ROOT));
            if (m.matches()) {
                long unit = switch (m.group(2)) {
                    case "K", "KB", "KIB" -> 1L << 10;
                    case "M", "MB", "MIB" -> 1L << 20;
                    case "G", "GB", "GIB" -> 1L << 30;
                    default -> 1;
                };
                try {
                    return Math.multiplyExact(Long.parseLong(m.group(1)), unit);
                } catch (ArithmeticException | NumberFormatException e) {
                    return null;
                }
            }
        }
        return null;
    }
}

package org.qplab.controller.experiment;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.qplab.controller.api.Violation;
import tools.jackson.databind.JsonNode;

/**
 * The run parameters a matrix may set: the native engine's spec keys (agent/src/main/c/qpb.h),
 * each with its type and limits. role, bind and port are the controller's to choose.
 */
public enum Parameter {
    PROVIDER("provider", Kind.CHOICE, 0, 0, List.of("tcp", "verbs")),
    OP("op", Kind.CHOICE, 0, 0, List.of("send", "write", "read")),
    THREADS("threads", Kind.INT, 1, 1024, List.of()),
    QPS_PER_THREAD("qps_per_thread", Kind.INT, 1, 65536, List.of()),
    MSG_SIZE("msg_size", Kind.SIZE, 1, 1L << 30, List.of()),
    ITERATIONS("iterations", Kind.INT, 1, 1_000_000_000L, List.of()),
    DURATION_MS("duration_ms", Kind.INT, 0, 86_400_000L, List.of()),
    WARMUP_CYCLES("warmup_cycles", Kind.INT, 0, 1_000_000_000L, List.of()),
    /** Cycles per second per thread, 0 = unpaced (both providers pace in software). */
    RATE_LIMIT("rate_limit", Kind.INT, 0, 1_000_000_000L, List.of()),
    TX_DEPTH("tx_depth", Kind.INT, 1, 4096, List.of()),
    /** How often each thread closes an interval record (the run's statistics, every cycle counted). */
    INTERVAL_MS("interval_ms", Kind.INT, 10, 60_000, List.of()),
    /** Per-cycle trace records kept per thread, at most (0: none, the default); see {@link #MAX_TRACE_PER_RUN}. */
    TRACE_FIRST("trace_first", Kind.INT, 0, 1_000_000, List.of()),
    /** ... of every K-th cycle (alone: up to the run's bound shared by its threads). */
    TRACE_EVERY("trace_every", Kind.INT, 1, 1L << 40, List.of()),
    /** Trace records buffered per thread until the agent drains them (a full buffer drops and counts them). */
    RING_CAPACITY("ring_capacity", Kind.POWER_OF_TWO, 1024, 1L << 24, List.of()),
    VERIFY("verify", Kind.BOOL, 0, 0, List.of()),
    TCP_NODELAY("tcp_nodelay", Kind.BOOL, 0, 0, List.of()),
    // The verbs provider's knobs (qpb.h); the tcp provider refuses them at anything but their default.
    DEVICE("device", Kind.TEXT, 0, 64, List.of(), ""),
    IB_PORT("ib_port", Kind.INT, 1, 255, List.of(), 1L),
    GID_INDEX("gid_index", Kind.INT, -1, 255, List.of(), -1L),
    TRANSPORT("transport", Kind.CHOICE, 0, 0, List.of("rc", "uc", "ud", "xrc"), "rc"),
    SRQ("srq", Kind.CHOICE, 0, 0, List.of("none", "per_thread", "shared"), "none"),
    INLINE_SIZE("inline_size", Kind.SIZE, 0, 65536, List.of(), 0L),
    SIGNAL_EVERY("signal_every", Kind.INT, 1, 4096, List.of(), 1L),
    POST_LIST("post_list", Kind.INT, 1, 4096, List.of(), 1L),
    RX_DEPTH("rx_depth", Kind.INT, 1, 16384, List.of(), 512L),
    CQ_MODE("cq_mode", Kind.CHOICE, 0, 0, List.of("per_qp", "per_thread", "shared"), "per_thread"),
    MR_MODE("mr_mode", Kind.CHOICE, 0, 0, List.of("per_thread", "per_qp"), "per_thread"),
    POLLING("polling", Kind.CHOICE, 0, 0, List.of("busy", "event"), "busy"),
    LOCK_MODEL("lock_model", Kind.CHOICE, 0, 0, List.of("shared", "thread_domain"), "shared"),
    MTU("mtu", Kind.CHOICE_INT, 0, 0, List.of("0", "256", "512", "1024", "2048", "4096"), 0L),
    RDMA_CM("rdma_cm", Kind.BOOL, 0, 0, List.of(), false),
    QP_SHARING("qp_sharing", Kind.CHOICE, 0, 0, List.of("per_thread", "shared"), "per_thread");

    enum Kind { INT, SIZE, POWER_OF_TWO, BOOL, CHOICE, CHOICE_INT, TEXT }

    /** Connections a run may open in all (each TCP connection costs two descriptors in loopback). */
    public static final long MAX_CONNECTIONS_PER_RUN = 65_536;
    /** Per-cycle trace records a run may keep in all (the engine's QPB_MAX_TRACE). */
    public static final long MAX_TRACE_PER_RUN = 1_000_000;

    private static final Pattern SIZE_TEXT = Pattern.compile("(\\d+)\\s*(|B|K|KB|KIB|M|MB|MIB|G|GB|GIB)");

    private final String key;
    private final Kind kind;
    private final long min;
    private final long max;
    private final List<String> choices;
    /** The engine's default for a verbs-only knob; null for parameters every provider takes. */
    private final Object verbsDefault;

    private static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9_.-]*");

    Parameter(String key, Kind kind, long min, long max, List<String> choices) {
        this(key, kind, min, max, choices, null);
    }

    Parameter(String key, Kind kind, long min, long max, List<String> choices, Object verbsDefault) {
        this.key = key;
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.choices = choices;
        this.verbsDefault = verbsDefault;
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

    public static Optional<Parameter> byKey(String key) {
        return Arrays.stream(values()).filter(p -> p.key.equals(key)).findFirst();
    }

    public static String knownKeys() {
        return String.join(", ", Arrays.stream(values()).map(Parameter::key).toList());
    }

    /** True for parameters whose values are numbers (usable as a curve axis). */
    public boolean numeric() {
        return kind == Kind.INT || kind == Kind.SIZE || kind == Kind.POWER_OF_TWO || kind == Kind.CHOICE_INT;
    }

    /**
     * Converts one matrix value to the engine's type, or explains what is wrong with it.
     * Sizes also accept binary suffixes: "4K", "64KiB", "1M".
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
            case CHOICE_INT -> {
                if (value.isIntegralNumber() && choices.contains(value.asString())) {
                    return value.longValue();
                }
                violations.add(new Violation(field, "must be one of " + choices + ", got " + value));
                return null;
            }
            case TEXT -> {
                if (value.isString() && value.stringValue().length() <= max
                        && DEVICE_NAME.matcher(value.stringValue()).matches()) {
                    return value.stringValue();
                }
                violations.add(new Violation(field, "must be a device name (letters, digits, _ . -; at most "
                        + max + " characters), got " + value));
                return null;
            }
            default -> {
                Long number = number(value);
                if (number == null) {
                    violations.add(new Violation(field, kind == Kind.SIZE
                            ? "must be a size in bytes (an integer, or like \"4K\", \"1MiB\"), got " + value
                            : "must be an integer, got " + value));
                    return null;
                }
                if (number < min || number > max) {
                    violations.add(new Violation(field, "must be between " + min + " and " + max + ", got " + number));
                    return null;
                }
                if (kind == Kind.POWER_OF_TWO && Long.bitCount(number) != 1) {
                    violations.add(new Violation(field, "must be a power of two, got " + number));
                    return null;
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

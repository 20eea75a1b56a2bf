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
    PROVIDER("provider", Kind.CHOICE, 0, 0, List.of("tcp")),
    OP("op", Kind.CHOICE, 0, 0, List.of("send")),
    THREADS("threads", Kind.INT, 1, 1024, List.of()),
    QPS_PER_THREAD("qps_per_thread", Kind.INT, 1, 65536, List.of()),
    MSG_SIZE("msg_size", Kind.SIZE, 1, 1L << 30, List.of()),
    ITERATIONS("iterations", Kind.INT, 1, 1_000_000_000L, List.of()),
    DURATION_MS("duration_ms", Kind.INT, 0, 86_400_000L, List.of()),
    WARMUP_CYCLES("warmup_cycles", Kind.INT, 0, 1_000_000_000L, List.of()),
    TX_DEPTH("tx_depth", Kind.INT, 1, 4096, List.of()),
    RING_CAPACITY("ring_capacity", Kind.POWER_OF_TWO, 1024, 1L << 24, List.of()),
    VERIFY("verify", Kind.BOOL, 0, 0, List.of()),
    TCP_NODELAY("tcp_nodelay", Kind.BOOL, 0, 0, List.of());

    enum Kind { INT, SIZE, POWER_OF_TWO, BOOL, CHOICE }

    /** Connections a run may open in all (each TCP connection costs two descriptors in loopback). */
    public static final long MAX_CONNECTIONS_PER_RUN = 65_536;

    private static final Pattern SIZE_TEXT = Pattern.compile("(\\d+)\\s*(|B|K|KB|KIB|M|MB|MIB|G|GB|GIB)");

    private final String key;
    private final Kind kind;
    private final long min;
    private final long max;
    private final List<String> choices;

    Parameter(String key, Kind kind, long min, long max, List<String> choices) {
        this.key = key;
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.choices = choices;
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
        return kind == Kind.INT || kind == Kind.SIZE || kind == Kind.POWER_OF_TWO;
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

package org.qplab.engine.nvmeof;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.qplab.engine.Engine;
import org.qplab.engine.SpecViolation;

/**
 * The spec of an nvmeof run (fio on an NVMe-oF namespace, or on the backing device itself), checked and with
 * its defaults filled: the one definition the controller checks matrix points with and the agent prepares by.
 * Values arrive as the controller parses them: Long (any integral Number) for integers and sizes, Boolean,
 * String. Every rule broken is reported at once, each naming its key.
 *
 * @param backingPath      the file or block device for backing file/device; null for null_blk
 * @param backingSizeBytes the null_blk device's size (backing null_blk only)
 * @param runtimeMs        fio's time-based runtime; null when the run is sized ({@code sizeBytes})
 * @param sizeBytes        bytes per fio job (not time based); null when the run is time based
 * @param device           the RDMA device whose port counters are read; "" = the one carrying the data address
 */
public record NvmeofSpec(String transport, String backing, String backingPath, long backingSizeBytes, String rw,
        int rwmixread, long bs, int iodepth, int numjobs, String ioengine, Long runtimeMs, Long sizeBytes,
        boolean direct, int intervalMs, String device) {

    public static final String PROVIDER = "nvmeof";
    public static final List<String> TRANSPORTS = List.of("rdma", "tcp", "local");
    public static final List<String> BACKINGS = List.of("null_blk", "file", "device");
    public static final List<String> RWS = List.of("read", "write", "randread", "randwrite", "randrw");
    public static final List<String> IOENGINES = List.of("io_uring", "libaio");

    static final long MIB = 1L << 20;
    static final long MIN_BACKING_SIZE = MIB;
    static final long MAX_BACKING_SIZE = 64L << 30;
    static final long MIN_BS = 512;
    static final long MAX_BS = 16 * MIB;
    static final long MIN_RUNTIME_MS = 100;
    static final long MAX_RUNTIME_MS = 86_400_000;
    static final long MIN_INTERVAL_MS = 100;
    static final long MAX_INTERVAL_MS = 60_000;

    /**
     * One key nvmeof takes, typed as the engine's schema (qpb_spec_schema) types its own: integer, string or boolean,
     * bytes for a byte count (a matrix may write "4K"), choices for a string that must be one of them.
     *
     * @param defaultValue what the run takes when the key is unset; null: none (runtime_ms's applies only when
     *                     size is unset too)
     */
    public record Key(String name, String type, boolean bytes, List<String> choices, Object defaultValue) {
        static Key integer(String name, Long dflt) {
            return new Key(name, "integer", false, List.of(), dflt);
        }

        static Key byteCount(String name, Long dflt) {
            return new Key(name, "integer", true, List.of(), dflt);
        }

        static Key oneOf(String name, List<String> choices, String dflt) {
            return new Key(name, "string", false, choices, dflt);
        }

        static Key string(String name) {
            return new Key(name, "string", false, List.of(), null);
        }

        static Key bool(String name, boolean dflt) {
            return new Key(name, "boolean", false, List.of(), dflt);
        }
    }

    /** Every key nvmeof takes, in the order its refusals list them; the one place their defaults are written. */
    public static final List<Key> KEYS = List.of(
            Key.oneOf("transport", TRANSPORTS, "rdma"),
            Key.oneOf("backing", BACKINGS, "null_blk"),
            Key.string("backing_path"),
            Key.byteCount("backing_size", 1L << 30),
            Key.oneOf("rw", RWS, "randread"),
            Key.integer("rwmixread", 50L),
            Key.byteCount("bs", 4096L),
            Key.integer("iodepth", 1L),
            Key.integer("numjobs", 1L),
            Key.oneOf("ioengine", IOENGINES, "io_uring"),
            Key.integer("runtime_ms", 10_000L),
            Key.byteCount("size", null),
            Key.bool("direct", true),
            Key.integer("interval_ms", 1000L),
            Key.string("device"));

    private static final Map<String, Key> BY_NAME = KEYS.stream()
            .collect(Collectors.toUnmodifiableMap(Key::name, k -> k));

    /** The default of one of nvmeof's keys (null: none); IllegalArgumentException for a key it does not take. */
    public static Object defaultOf(String key) {
        Key k = BY_NAME.get(key);
        if (k == null) {
            throw new IllegalArgumentException("nvmeof takes no key " + key);
        }
        return k.defaultValue();
    }

    /** The keys nvmeof takes, as a user reads them in a refusal. */
    private static final String NVMEOF_KEYS = "rw, bs, iodepth, numjobs, ioengine, runtime_ms or size, direct, "
            + "rwmixread (randrw), transport, backing, backing_path, backing_size, interval_ms, device";

    /** Keys the controller sets for every pair or loopback run; nothing nvmeof reads from the spec. */
    private static final Set<String> CONTROLLER_KEYS = Set.of("provider", "role", "bind", "port");

    /**
     * The engine's (tcp/verbs) keys with their defaults, as its schema has them (Engine.specDefaults): present at
     * the default they are harmless, at any other value refused. A null default (msg_size, which the engine
     * requires) refuses every value. Without the engine (its library did not load) each is an unknown key here.
     */
    private static final class EngineDefaults {
        static final Map<String, Object> OF_KEY = read();

        private static Map<String, Object> read() {
            if (!Engine.isAvailable()) {
                return Map.of();
            }
            Map<String, Object> defaults = new LinkedHashMap<>(Engine.specDefaults());
            defaults.keySet().removeIf(key -> CONTROLLER_KEYS.contains(key) || BY_NAME.containsKey(key));
            return defaults;
        }
    }

    /** Every rule the spec breaks (empty when it is a valid nvmeof spec), each with its key as the field. */
    public static List<SpecViolation> check(Map<String, Object> spec) {
        Reader r = new Reader(spec);
        r.read();
        return r.violations;
    }

    /** The spec with its defaults filled; IllegalArgumentException listing every violation when it is invalid. */
    public static NvmeofSpec of(Map<String, Object> spec) {
        Reader r = new Reader(spec);
        NvmeofSpec parsed = r.read();
        if (!r.violations.isEmpty()) {
            throw new IllegalArgumentException("invalid nvmeof spec: " + r.violations.stream()
                    .map(v -> v.field() + ": " + v.message()).collect(Collectors.joining("; ")));
        }
        return parsed;
    }

    /** True when fio runs for runtimeMs (time based), false when it moves sizeBytes per job. */
    public boolean timeBased() {
        return runtimeMs != null;
    }

    /**
     * The refusal of a backing path the host does not list (its hello's nvmeof.backing_paths), or null when the
     * path is allowed or the backing is null_blk.
     */
    public SpecViolation checkBackingPath(String host, List<String> hostBackingPaths) {
        if (backingPath == null || hostBackingPaths.contains(backingPath)) {
            return null;
        }
        return new SpecViolation("backing_path", "host " + host + " does not offer " + backingPath + " as a backing "
                + backing + " (its nvmeof.backing_paths, agent option --nvmeof-backing: "
                + (hostBackingPaths.isEmpty() ? "none" : String.join(", ", hostBackingPaths)) + ")");
    }

    /** fio's command line after "fio": the job on filename (the namespace or backing device), named jobName. */
    public List<String> fioArguments(String filename, String jobName) {
        List<String> a = new ArrayList<>();
        a.add("--name=" + jobName);
        a.add("--filename=" + filename);
        a.add("--rw=" + rw);
        if (rw.equals("randrw")) {
            a.add("--rwmixread=" + rwmixread);
        }
        a.add("--bs=" + bs);
        a.add("--ioengine=" + ioengine);
        a.add("--iodepth=" + iodepth);
        a.add("--numjobs=" + numjobs);
        a.add("--direct=" + (direct ? 1 : 0));
        a.add("--group_reporting");
        a.add("--output-format=json+");
        a.add("--status-interval=" + intervalMs + "ms");
        a.add("--percentile_list=50:99:99.9");
        if (timeBased()) {
            a.add("--time_based");
            a.add("--runtime=" + runtimeMs + "ms");
        } else {
            a.add("--size=" + sizeBytes);
        }
        return a;
    }

    /** Reads one spec map, collecting violations; its result is meaningful only when there are none. */
    private static final class Reader {
        private final Map<String, Object> spec;
        final List<SpecViolation> violations = new ArrayList<>();

        Reader(Map<String, Object> spec) {
            this.spec = spec;
        }

        NvmeofSpec read() {
            Object provider = spec.get("provider");
            if (provider != null && !PROVIDER.equals(provider)) {
                violate("provider", "must be " + PROVIDER + " for an nvmeof spec, got " + provider);
            }
            for (Map.Entry<String, Object> e : spec.entrySet()) {
                String key = e.getKey();
                if (CONTROLLER_KEYS.contains(key) || isNvmeofKey(key)) {
                    continue;
                }
                if (EngineDefaults.OF_KEY.containsKey(key)) {
                    if (!isDefault(EngineDefaults.OF_KEY.get(key), e.getValue())) {
                        violate(key, key + " is an engine (tcp/verbs) key; nvmeof runs take " + NVMEOF_KEYS
                                + " (got " + key + " " + e.getValue() + ")");
                    }
                } else {
                    violate(key, "unknown key for provider nvmeof; it takes " + NVMEOF_KEYS);
                }
            }
            String transport = choice("transport", TRANSPORTS);
            String backing = choice("backing", BACKINGS);
            String backingPath = text("backing_path");
            if (backing != null) {
                if (backing.equals("null_blk")) {
                    if (backingPath != null) {
                        violate("backing_path", "is refused with backing null_blk (the target makes the null_blk "
                                + "device itself, sized by backing_size); it is for backing file or device");
                    }
                } else if (backingPath == null) {
                    violate("backing_path", "is required with backing " + backing + ": the " + backing
                            + "'s absolute path, one the target host lists in its nvmeof.backing_paths");
                } else if (!backingPath.startsWith("/") || backingPath.contains("/../") || backingPath.endsWith("/..")) {
                    violate("backing_path", "must be an absolute path without .. segments, got " + backingPath);
                }
            }
            Long backingSize = number("backing_size", MIN_BACKING_SIZE, MAX_BACKING_SIZE, defaultNumber("backing_size"),
                    "bytes (1 MiB .. 64 GiB)");
            if (spec.containsKey("backing_size") && backing != null && !backing.equals("null_blk")) {
                violate("backing_size", "applies to backing null_blk only (the size of the null_blk device); "
                        + "backing " + backing + " has its own size");
            } else if (backingSize != null && backingSize % MIB != 0) {
                violate("backing_size", "must be a multiple of 1 MiB (1048576 bytes), got " + backingSize);
            }
            String rw = choice("rw", RWS);
            Long rwmixread = number("rwmixread", 0, 100, defaultNumber("rwmixread"), "percent of I/Os that are reads");
            if (spec.containsKey("rwmixread") && rw != null && !rw.equals("randrw")) {
                violate("rwmixread", "applies only with rw randrw (the read share of a mixed run), got rw " + rw);
            }
            Long bs = number("bs", MIN_BS, MAX_BS, defaultNumber("bs"), "bytes (512 .. 16 MiB, a multiple of 512)");
            if (bs != null && bs % MIN_BS != 0) {
                violate("bs", "must be a multiple of 512 bytes (512 .. 16 MiB), got " + bs);
                bs = null;
            }
            Long iodepth = number("iodepth", 1, 65535, defaultNumber("iodepth"), "I/Os in flight per job");
            Long numjobs = number("numjobs", 1, 64, defaultNumber("numjobs"), "fio jobs");
            String ioengine = choice("ioengine", IOENGINES);
            Long size = number("size", 1, Long.MAX_VALUE, null, "bytes per job");
            Long runtime = number("runtime_ms", MIN_RUNTIME_MS, MAX_RUNTIME_MS, size == null ? defaultNumber("runtime_ms") : null,
                    "ms (fio --runtime, time based)");
            if (spec.containsKey("runtime_ms") && spec.containsKey("size")) {
                violate("runtime_ms", "and size are exclusive: a run is time based (runtime_ms) or moves size bytes "
                        + "per job (size), not both");
            }
            if (size != null && bs != null && size < bs) {
                violate("size", "must be at least bs (" + bs + " bytes), got " + size);
            }
            if (backingSize != null && "null_blk".equals(backing)) {
                if (size != null && size > backingSize) {
                    violate("size", "must be at most backing_size (" + backingSize + " bytes, the null_blk device), got "
                            + size);
                }
                if (bs != null && bs > backingSize) {
                    violate("bs", "must be at most backing_size (" + backingSize + " bytes, the null_blk device), got "
                            + bs);
                }
            }
            Boolean direct = bool("direct");
            Long interval = number("interval_ms", MIN_INTERVAL_MS, MAX_INTERVAL_MS, defaultNumber("interval_ms"),
                    "ms between fio status dumps (--status-interval)");
            String device = text("device");
            if (!violations.isEmpty()) {
                return null;
            }
            return new NvmeofSpec(transport, backing, backingPath, backingSize, rw, rwmixread.intValue(), bs,
                    iodepth.intValue(), numjobs.intValue(), ioengine, runtime, size, direct, interval.intValue(),
                    device == null ? "" : device);
        }

        private static boolean isNvmeofKey(String key) {
            return BY_NAME.containsKey(key);
        }

        private static boolean isDefault(Object def, Object value) {
            if (def == null || value == null) {
                return false;
            }
            if (def instanceof Long d) {
                Long v = integral(value);
                return v != null && v.longValue() == d;
            }
            return def.equals(value);
        }

        private void violate(String field, String message) {
            violations.add(new SpecViolation(field, message));
        }

        private static Long defaultNumber(String key) {
            return (Long) defaultOf(key);
        }

        private String choice(String key, List<String> choices) {
            Object v = spec.get(key);
            if (v == null) {
                return (String) defaultOf(key);
            }
            if (v instanceof String s && choices.contains(s)) {
                return s;
            }
            violate(key, "must be one of " + String.join(", ", choices) + ", got " + quoted(v));
            return null;
        }

        private String text(String key) {
            Object v = spec.get(key);
            if (v == null) {
                return null;
            }
            if (v instanceof String s && !s.isBlank()) {
                return s;
            }
            violate(key, "must be a non-empty string, got " + quoted(v));
            return null;
        }

        private Boolean bool(String key) {
            Object v = spec.get(key);
            if (v == null) {
                return (Boolean) defaultOf(key);
            }
            if (v instanceof Boolean b) {
                return b;
            }
            violate(key, "must be true or false, got " + quoted(v));
            return null;
        }

        /** The value within [min, max], the default when absent, null (with a violation) when it is not. */
        private Long number(String key, long min, long max, Long dflt, String what) {
            Object v = spec.get(key);
            if (v == null) {
                return dflt;
            }
            Long n = integral(v);
            String range = max == Long.MAX_VALUE ? "at least " + min : min + ".." + max;
            if (n == null) {
                violate(key, "must be an integer, " + range + " " + what + ", got " + quoted(v));
                return null;
            }
            if (n < min || n > max) {
                violate(key, "must be " + range + " " + what + ", got " + n);
                return null;
            }
            return n;
        }

        private static Long integral(Object v) {
            if (v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte) {
                return ((Number) v).longValue();
            }
            if (v instanceof BigInteger b && b.bitLength() < 64) {
                return b.longValue();
            }
            return null;
        }

        private static String quoted(Object v) {
            return v instanceof String s ? "\"" + s + "\"" : String.valueOf(v);
        }
    }
}

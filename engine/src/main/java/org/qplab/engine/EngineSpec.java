package org.qplab.engine;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The native engine's providers, tcp and verbs, as the engine describes them: its keys and defaults from
 * qpb_spec_schema, its rules from qpb_spec_check (libqpbench.so through {@link Engine}). Native calls: the first use
 * must not be on an event loop.
 */
public final class EngineSpec implements ProviderSpec {

    /** The one instance; reading the engine's table waits for the first call that needs it. */
    public static final EngineSpec ENGINE = new EngineSpec();

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The parameters curves and comparisons group by, written into every stored point at the engine's default. */
    private static final List<String> EXPLICIT = List.of("provider", "op", "mode", "threads", "qps_per_thread");

    /** Connections a tcp run may open in all (each costs two descriptors in loopback): what one run may ask of a host. */
    static final long MAX_TCP_CONNECTIONS_PER_RUN = 65_536;

    private static final String TCP = "tcp";
    private static final String VERBS = "verbs";

    private EngineSpec() {
    }

    private static final class Schema {
        static final List<SpecKey> KEYS = read();
        /** Each key's default, where it has one. */
        static final Map<String, Object> DEFAULTS = defaults();

        private static Map<String, Object> defaults() {
            Map<String, Object> defaults = new LinkedHashMap<>();
            KEYS.stream().filter(k -> k.defaultValue() != null).forEach(k -> defaults.put(k.name(), k.defaultValue()));
            return java.util.Collections.unmodifiableMap(defaults);
        }

        private static List<SpecKey> read() {
            Map<String, Object> defaults = Engine.specDefaults();
            List<SpecKey> keys = new ArrayList<>();
            for (JsonNode key : JSON.readTree(Engine.specSchema())) {
                String name = key.get("name").stringValue();
                List<String> choices = new ArrayList<>();
                if (key.has("enum")) {
                    key.get("enum").forEach(c -> choices.add(c.stringValue()));
                }
                keys.add(new SpecKey(name, key.get("type").stringValue(), key.has("format"), List.copyOf(choices),
                        defaults.get(name), key.get("verbs_only").asBoolean() ? List.of(VERBS) : List.of(TCP, VERBS)));
            }
            return List.copyOf(keys);
        }
    }

    @Override
    public List<String> providers() {
        return List.of(TCP, VERBS);
    }

    @Override
    public List<SpecKey> keys() {
        return Schema.KEYS;
    }

    /** The engine's default of one of its keys; IllegalArgumentException when it has none. */
    public Object defaultOf(String key) {
        for (SpecKey k : keys()) {
            if (k.name().equals(key) && k.defaultValue() != null) {
                return k.defaultValue();
            }
        }
        throw new IllegalArgumentException("the engine has no default for " + key);
    }

    @Override
    public List<SpecViolation> check(Map<String, Object> point) {
        return Engine.checkSpec(JSON.writeValueAsString(point));
    }

    /** A verbs point also says its transport (RoCE or InfiniBand's), which a tcp run has none of. */
    @Override
    public Map<String, Object> explicitDefaults(Map<String, Object> point) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        EXPLICIT.forEach(key -> defaults.put(key, defaultOf(key)));
        if (VERBS.equals(point.getOrDefault("provider", defaults.get("provider")))) {
            defaults.put("transport", defaultOf("transport"));
        }
        return defaults;
    }

    @Override
    public Counts counts() {
        return Counts.MESSAGES;
    }

    @Override
    public String pairOnly(Map<String, Object> point) {
        return Boolean.TRUE.equals(point.get("bidirectional"))
                ? "bidirectional runs are client/server pairs (hosts: {pairs: [[client, server], ...]} or {group: "
                        + "[...]}); a loopback run holds both ends in one process"
                : null;
    }

    @Override
    public boolean onServerAlone(Map<String, Object> point) {
        return false;
    }

    @Override
    public Long connectionLimit(Map<String, Object> point) {
        return TCP.equals(point.get("provider")) ? MAX_TCP_CONNECTIONS_PER_RUN : null;
    }

    /** A duration run's planned length is duration_ms; one by iterations has none. */
    @Override
    public Timing timing(Map<String, Object> point) {
        Object duration = point.get("duration_ms");
        return new Timing("duration_ms", duration instanceof Number ms && ms.longValue() > 0
                ? Duration.ofMillis(ms.longValue()) : null, Duration.ZERO, null);
    }

    /**
     * A connected host whose engine does not offer the point's provider (verbs without rdma-core), with its reason;
     * for verbs, also what its RDMA devices lack for the point ({@link VerbsHostFacts}: no device, no device or port
     * of the point's, xrc, atomics, thread domains, inline size).
     */
    @Override
    public List<SpecViolation> hostRefusals(Map<String, Object> point, Side side, Map<String, Object> facts) {
        Object provider = point.get("provider");
        if (facts == null || !(facts.get("engine") instanceof Map<?, ?> engine)) {
            return List.of();
        }
        if (engine.get("providers") instanceof List<?> offered && !offered.contains(provider)) {
            Object why = engine.get(provider + "_unavailable");
            return List.of(new SpecViolation("hosts", side.role() + " " + side.host() + " cannot run provider "
                    + provider + ": " + (why != null ? why : "its engine does not offer it (providers " + offered + ")")));
        }
        return VERBS.equals(provider) ? VerbsHostFacts.refusals(point, side, facts, Schema.DEFAULTS) : List.of();
    }

    /** The length keys: a run's iterations, its duration_ms, its warmup_cycles (what similar runs may differ in). */
    @Override
    public List<String> lengthKeys() {
        return List.of("iterations", "duration_ms", "warmup_cycles");
    }

    /** A run by count counts its iterations (the engine's default where the point is silent); one by time, none. */
    @Override
    public Long plannedCycles(Map<String, Object> point) {
        if (timing(point).planned() != null) {
            return null;
        }
        Object iterations = point.containsKey("iterations") ? point.get("iterations") : Schema.DEFAULTS.get("iterations");
        return iterations instanceof Number n && n.longValue() > 0 ? n.longValue() : null;
    }

    /** Keys of the engine that a matrix does not set: the controller's (role, bind, port) and the agent's. */
    public static final Set<String> NOT_MATRIX_KEYS = Set.of("role", "bind", "port", "interval_ring");
}

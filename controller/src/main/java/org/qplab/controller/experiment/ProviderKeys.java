package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.qplab.engine.Engine;
import org.qplab.engine.nvmeof.NvmeofSpec;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/**
 * The run parameters a matrix may set, their choices and their defaults, read once from the providers' own
 * schemas: the engine's spec table (qpb_spec_schema, for tcp and verbs) and then nvmeof's keys (NvmeofSpec.KEYS)
 * that the engine lacks, in that order. A key both have (transport, interval_ms, device) is the engine's, with
 * nvmeof's choices added. Reading the engine's table is a native call: the first use must not be on an event loop.
 */
public final class ProviderKeys {

    /** The nvmeof provider: fio on NVMe-oF, checked by NvmeofSpec rather than the engine. */
    public static final String NVMEOF = NvmeofSpec.PROVIDER;

    /** Engine keys a matrix does not set: the controller's (role, bind, port) and the agent's (interval_ring). */
    private static final Set<String> NOT_MATRIX_KEYS = Set.of("role", "bind", "port", "interval_ring");

    private final Map<String, ProviderKey> keys;
    private final Map<String, Object> engineDefaults;

    private ProviderKeys(Map<String, ProviderKey> keys, Map<String, Object> engineDefaults) {
        this.keys = keys;
        this.engineDefaults = engineDefaults;
    }

    private static final class Loaded {
        static final ProviderKeys KEYS = read(Engine.specSchema(), Engine.specDefaults());
    }

    static ProviderKeys read(String engineSchema, Map<String, Object> engineDefaults) {
        Map<String, ProviderKey> keys = new LinkedHashMap<>();
        for (JsonNode key : new ObjectMapper().readTree(engineSchema)) {
            String name = key.get("name").stringValue();
            if (NOT_MATRIX_KEYS.contains(name)) {
                continue;
            }
            List<String> choices = new ArrayList<>();
            if (key.has("enum")) {
                key.get("enum").forEach(c -> choices.add(c.stringValue()));
            }
            keys.put(name, new ProviderKey(name, kind(key.get("type").stringValue(), key.has("format"), choices),
                    choices, key.get("verbs_only").asBoolean(), false));
        }
        keys.computeIfPresent("provider", (name, provider) -> withChoices(provider, List.of(NVMEOF)));
        for (NvmeofSpec.Key key : NvmeofSpec.KEYS) {
            ProviderKey engine = keys.get(key.name());
            keys.put(key.name(), engine != null ? withChoices(engine, key.choices())
                    : new ProviderKey(key.name(), kind(key.type(), key.bytes(), key.choices()), key.choices(), false,
                            true));
        }
        return new ProviderKeys(Collections.unmodifiableMap(keys), engineDefaults);
    }

    private static ProviderKey.Kind kind(String type, boolean bytes, List<String> choices) {
        return switch (type) {
            case "integer" -> bytes ? ProviderKey.Kind.SIZE : ProviderKey.Kind.INT;
            case "boolean" -> ProviderKey.Kind.BOOL;
            default -> choices.isEmpty() ? ProviderKey.Kind.TEXT : ProviderKey.Kind.CHOICE;
        };
    }

    private static ProviderKey withChoices(ProviderKey key, List<String> more) {
        List<String> choices = new ArrayList<>(key.choices());
        more.stream().filter(c -> !choices.contains(c)).forEach(choices::add);
        return new ProviderKey(key.key(), key.kind(), List.copyOf(choices), key.verbsOnly(), key.nvmeofOnly());
    }

    /** Every parameter, the engine's first, in its table's order. */
    public static List<ProviderKey> all() {
        return List.copyOf(Loaded.KEYS.keys.values());
    }

    public static Optional<ProviderKey> byKey(String key) {
        return Optional.ofNullable(Loaded.KEYS.keys.get(key));
    }

    /** The parameters' names, as a refusal lists them. */
    public static String knownKeys() {
        return String.join(", ", Loaded.KEYS.keys.keySet());
    }

    /** The engine's default of one of its keys (qpb_spec_schema); IllegalArgumentException when it has none. */
    public static Object engineDefault(String key) {
        Object value = Loaded.KEYS.engineDefaults.get(key);
        if (value == null) {
            throw new IllegalArgumentException("the engine has no default for " + key);
        }
        return value;
    }

    /** nvmeof's default of one of its keys (NvmeofSpec.KEYS); IllegalArgumentException when it has none. */
    public static Object nvmeofDefault(String key) {
        Object value = NvmeofSpec.defaultOf(key);
        if (value == null) {
            throw new IllegalArgumentException("nvmeof has no default for " + key);
        }
        return value;
    }

    /** Whether a point (its provider) is an nvmeof run. */
    public static boolean nvmeof(Map<String, Object> point) {
        return NVMEOF.equals(point.get("provider"));
    }
}

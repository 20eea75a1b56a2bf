package org.qplab.controller.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.qplab.engine.EngineSpec;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.SpecKey;
import org.qplab.engine.provider.Providers;

/**
 * The run parameters a matrix may set, their choices and the providers that take them, read once from the providers'
 * own specs ({@link Providers}: the engine's schema, qpb_spec_schema, for tcp and verbs; then nvmeof's), in that
 * order. A key several providers take (transport, interval_ms, device) is the first's, with the others' choices and
 * providers added. Reading the engine's table is a native call: the first use must not be on an event loop.
 */
public final class ProviderKeys {

    private final Map<String, ProviderKey> keys;

    private ProviderKeys(Map<String, ProviderKey> keys) {
        this.keys = keys;
    }

    private static final class Loaded {
        static final ProviderKeys KEYS = read(Providers.all());
    }

    static ProviderKeys read(List<ProviderSpec> specs) {
        List<String> providerNames = specs.stream().flatMap(s -> s.providers().stream()).toList();
        Map<String, ProviderKey> keys = new LinkedHashMap<>();
        for (ProviderSpec spec : specs) {
            for (SpecKey key : spec.keys()) {
                if (EngineSpec.NOT_MATRIX_KEYS.contains(key.name())) {
                    continue;
                }
                List<String> choices = key.name().equals("provider") ? providerNames : key.choices();
                ProviderKey known = keys.get(key.name());
                keys.put(key.name(), known != null ? merged(known, choices, key.providers())
                        : new ProviderKey(key.name(), kind(key.type(), key.bytes(), choices), List.copyOf(choices),
                                key.providers()));
            }
        }
        return new ProviderKeys(Collections.unmodifiableMap(keys));
    }

    private static ProviderKey.Kind kind(String type, boolean bytes, List<String> choices) {
        return switch (type) {
            case "integer" -> bytes ? ProviderKey.Kind.SIZE : ProviderKey.Kind.INT;
            case "boolean" -> ProviderKey.Kind.BOOL;
            default -> choices.isEmpty() ? ProviderKey.Kind.TEXT : ProviderKey.Kind.CHOICE;
        };
    }

    private static ProviderKey merged(ProviderKey key, List<String> moreChoices, List<String> moreProviders) {
        List<String> choices = new ArrayList<>(key.choices());
        moreChoices.stream().filter(c -> !choices.contains(c)).forEach(choices::add);
        List<String> providers = new ArrayList<>(key.providers());
        moreProviders.stream().filter(p -> !providers.contains(p)).forEach(providers::add);
        return new ProviderKey(key.key(), key.kind(), List.copyOf(choices), List.copyOf(providers));
    }

    /** Every parameter, the engine's first, in its table's order. */
    public static List<ProviderKey> all() {
        return List.copyOf(Loaded.KEYS.keys.values());
    }

    public static Optional<ProviderKey> byKey(String key) {
        return Optional.ofNullable(Loaded.KEYS.keys.get(key));
    }

    /** The parameters' names, in {@link #all()}'s order. */
    public static java.util.Collection<String> names() {
        return Loaded.KEYS.keys.keySet();
    }

    /** The parameters' names, as a refusal lists them. */
    public static String knownKeys() {
        return String.join(", ", Loaded.KEYS.keys.keySet());
    }

    /** The engine's default of one of its keys (qpb_spec_schema); IllegalArgumentException when it has none. */
    public static Object engineDefault(String key) {
        return EngineSpec.ENGINE.defaultOf(key);
    }
}

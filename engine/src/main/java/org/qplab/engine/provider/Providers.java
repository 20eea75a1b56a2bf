package org.qplab.engine.provider;

import java.util.List;
import java.util.Optional;
import java.util.Map;
import org.qplab.engine.EngineSpec;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.nvmeof.NvmeofProviderSpec;

/**
 * Every provider a run may name, by the value of its {@code provider} key: the native engine's (tcp, verbs) and
 * nvmeof's. The one place that lists them; whoever needs a provider's keys, rules or plan asks here.
 */
public final class Providers {

    private static final List<ProviderSpec> ALL = List.of(EngineSpec.ENGINE, NvmeofProviderSpec.NVMEOF);

    private Providers() {
    }

    /** Every provider's spec, the engine's first. */
    public static List<ProviderSpec> all() {
        return ALL;
    }

    /** The spec of the provider named by params ({@code provider}; unset: the engine's default), if it is one. */
    public static Optional<ProviderSpec> find(Map<String, Object> params) {
        Object name = params == null ? null : params.get("provider");
        if (name == null) {
            return Optional.of(EngineSpec.ENGINE);
        }
        return ALL.stream().filter(spec -> spec.providers().contains(name)).findFirst();
    }

    /**
     * The spec of a point's provider; the engine's when it names none of them, whose check then refuses the name with
     * the engine's choices.
     */
    public static ProviderSpec of(Map<String, Object> point) {
        return find(point).orElse(EngineSpec.ENGINE);
    }
}

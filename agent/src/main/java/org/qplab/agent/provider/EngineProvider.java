package org.qplab.agent.provider;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.qplab.engine.Engine;
import org.qplab.engine.EngineSession;
import org.qplab.engine.EngineSpec;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.RunSession;
import tools.jackson.databind.ObjectMapper;

/** The native engine (libqpbench.so): providers tcp and verbs, one {@link EngineSession} per side. */
public final class EngineProvider implements Provider {

    private final ObjectMapper json;
    /** The data address a tcp server side listens on (the agent's --data-address, else the host's own). */
    private final Supplier<String> dataAddress;
    /** --data-address when given: also where a verbs server's control socket listens (else its RoCE address). */
    private final String configuredDataAddress;

    public EngineProvider(ObjectMapper json, Supplier<String> dataAddress, String configuredDataAddress) {
        this.json = json;
        this.dataAddress = dataAddress;
        this.configuredDataAddress = configuredDataAddress;
    }

    @Override
    public ProviderSpec spec() {
        return EngineSpec.ENGINE;
    }

    /** The engine's info and the host's RDMA devices, or why the engine did not load. */
    @Override
    @SuppressWarnings("unchecked")
    public Map<String, Object> facts() {
        Map<String, Object> facts = new LinkedHashMap<>();
        if (Engine.isAvailable()) {
            facts.put("engine", json.readValue(Engine.info(), Map.class));
            Map<?, ?> inventory = json.readValue(Engine.devices(), Map.class);
            facts.put("rdma_devices", inventory.get("devices"));
            if (inventory.get("unavailable") != null) {
                facts.put("rdma_unavailable", inventory.get("unavailable"));
            }
            facts.put("rdma_core", rdmaCoreVersion());
        } else {
            facts.put("engine_unavailable", String.valueOf(Engine.unavailabilityCause()));
        }
        return facts;
    }

    /**
     * A server side binds where its client reaches it: tcp's data socket at the data address; verbs' control socket
     * (the end-of-run exchange) at --data-address when given, by default the engine's choice (the RoCE address).
     */
    @Override
    public Map<String, Object> sideSpec(Map<String, Object> params) {
        Map<String, Object> spec = new LinkedHashMap<>(params);
        if ("server".equals(spec.get("role"))) {
            if ("tcp".equals(spec.getOrDefault("provider", EngineSpec.ENGINE.defaultOf("provider")))) {
                spec.putIfAbsent("bind", dataAddress.get());
            } else if (configuredDataAddress != null) {
                spec.putIfAbsent("bind", configuredDataAddress);
            }
        }
        return spec;
    }

    @Override
    public RunSession open(long runId, Map<String, Object> spec) {
        return EngineSession.create(json.writeValueAsString(spec));
    }

    /** The libibverbs the engine loads, by the version in its file name (libibverbs.so.1.14.44.0: rdma-core 44). */
    private static String rdmaCoreVersion() {
        for (String dir : List.of("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib")) {
            try (var files = Files.list(Path.of(dir))) {
                var found = files.map(f -> f.getFileName().toString())
                        .filter(n -> n.matches("libibverbs\\.so\\.1\\.\\d+\\.\\d+\\.\\d+.*")).sorted().findFirst();
                if (found.isPresent()) {
                    String[] parts = found.get().split("\\.");
                    return "rdma-core " + parts[4] + (parts.length > 5 ? "." + parts[5] : "") + " (" + found.get() + ")";
                }
            } catch (IOException | RuntimeException e) {
                // not this directory
            }
        }
        return null;
    }
}

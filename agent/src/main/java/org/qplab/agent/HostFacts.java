package org.qplab.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.agent.nvmeof.Capabilities;
import org.qplab.agent.nvmeof.NvmeofHost;
import org.qplab.engine.Engine;
import tools.jackson.databind.ObjectMapper;

/** What the agent tells the controller about its host when it registers. */
final class HostFacts {

    private HostFacts() {
    }

    static String hostname() {
        String name = firstLine(Path.of("/proc/sys/kernel/hostname"));
        if (name != null) {
            return name;
        }
        String env = System.getenv("HOSTNAME");
        return env != null ? env : "localhost";
    }

    static Map<String, Object> collect(ObjectMapper json, NvmeofHost nvmeof) {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("hostname", hostname());
        facts.put("kernel", firstLine(Path.of("/proc/sys/kernel/osrelease")));
        facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        facts.put("cpus", Runtime.getRuntime().availableProcessors());
        facts.put("cpu_model", cpuModel());
        facts.put("memory_kib", memTotalKib());
        facts.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
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
        facts.put("nvmeof", Capabilities.probe(nvmeof).facts());
        return facts;
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

    private static String cpuModel() {
        return lines(Path.of("/proc/cpuinfo")).stream()
                .filter(l -> l.startsWith("model name"))
                .map(l -> l.substring(l.indexOf(':') + 1).trim())
                .findFirst().orElse(null);
    }

    private static Long memTotalKib() {
        return lines(Path.of("/proc/meminfo")).stream()
                .filter(l -> l.startsWith("MemTotal:"))
                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")))
                .findFirst().orElse(null);
    }

    private static String firstLine(Path path) {
        List<String> lines = lines(path);
        return lines.isEmpty() ? null : lines.get(0).trim();
    }

    private static List<String> lines(Path path) {
        try {
            return Files.readAllLines(path);
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }
}

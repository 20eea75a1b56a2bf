package org.qplab.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.agent.provider.Provider;

/** What the agent tells the controller about its host when it registers: the host, then each provider's facts. */
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

    static Map<String, Object> collect(List<Provider> providers) {
        Map<String, Object> facts = new LinkedHashMap<>();
        facts.put("hostname", hostname());
        facts.put("kernel", firstLine(Path.of("/proc/sys/kernel/osrelease")));
        facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.arch"));
        facts.put("cpus", Runtime.getRuntime().availableProcessors());
        facts.put("cpu_model", cpuModel());
        facts.put("memory_kib", memTotalKib());
        facts.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
        providers.forEach(provider -> facts.putAll(provider.facts()));
        return facts;
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

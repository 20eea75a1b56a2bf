package org.qplab.controller;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The controller and the dashboard know no provider by name: what differs between providers (keys, rules, where and
 * how long a point runs, what a host needs, what a cycle counts) is asked of the provider's spec (the engine
 * module's Providers; the dashboard reads the API's run.counts). A comparison of a value with a provider's name in
 * their main sources fails here, naming file and line.
 */
class ProviderNamesTests {

    private static final String NAMES = "(tcp|verbs|nvmeof)";
    private static final Pattern COMPARISON = Pattern.compile(
            "\"" + NAMES + "\"\\s*\\.equals|equals\\(\\s*\"" + NAMES + "\"|case\\s+\"" + NAMES + "\""
                    + "|[!=]==?\\s*'" + NAMES + "'|'" + NAMES + "'\\s*[!=]==?");

    @Test
    void noMainSourceOfTheControllerOrTheDashboardComparesAProviderName() throws IOException {
        List<String> found = new ArrayList<>();
        scan(Path.of("src", "main", "java"), ".java", found);
        scan(Path.of("..", "web-ui", "src", "main", "web", "js"), ".js", found);
        assertThat(found).as("provider names compared in main sources").isEmpty();
    }

    @Test
    void thePatternFindsTheComparisonsItForbids() { // a pattern that matched nothing would pass the test above
        assertThat(Stream.of("if (\"nvmeof\".equals(p))", "x.equals(\"verbs\")", "case \"tcp\" ->",
                "run.params?.provider === 'nvmeof'", "'verbs' !== provider").filter(l -> COMPARISON.matcher(l).find()))
                .hasSize(5);
        assertThat(COMPARISON.matcher("facts.get(\"nvmeof\")").find()).isFalse();
    }

    private static void scan(Path root, String suffix, List<String> found) throws IOException {
        assertThat(root).as("sources to scan").isDirectory();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(suffix)).sorted().toList()) {
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    if (COMPARISON.matcher(lines.get(i)).find()) {
                        found.add(file + ":" + (i + 1) + ": " + lines.get(i).strip());
                    }
                }
            }
        }
    }
}

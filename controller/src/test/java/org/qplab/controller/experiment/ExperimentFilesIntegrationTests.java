package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.http.MediaType;

/** Every matrix file under experiments/ is one the controller accepts, and expands to the runs it says. */
class ExperimentFilesIntegrationTests extends ControllerIntegrationTest {

    static final Path EXPERIMENTS = Path.of(System.getProperty("qplab.test.experiments", "../experiments")).toAbsolutePath();

    static List<Path> matrixFiles() throws IOException {
        try (Stream<Path> files = Files.walk(EXPERIMENTS)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Test
    void everyExperimentFileValidates() throws IOException {
        List<Path> files = matrixFiles();
        assertThat(files).as("matrix files under %s", EXPERIMENTS).hasSizeGreaterThanOrEqualTo(13);
        for (Path file : files) {
            var result = http().post().uri("/api/experiments/validate")
                    .contentType(MediaType.parseMediaType("application/yaml")).bodyValue(Files.readAllBytes(file))
                    .exchange().expectBody(JSON_OBJECT).returnResult();
            Map<String, Object> check = result.getResponseBody();
            assertThat(result.getStatus().value()).as("%s: %s", EXPERIMENTS.relativize(file), check).isEqualTo(200);
            assertThat(((Number) check.get("runs")).intValue()).as("runs of %s", file).isPositive();
        }
    }

    @Test
    void everyReferenceExperimentHasAFullMatrixALabVariantAndAReadme() throws IOException {
        try (Stream<Path> dirs = Files.list(EXPERIMENTS)) {
            List<Path> experiments = dirs.filter(Files::isDirectory).sorted().toList();
            assertThat(experiments).hasSize(6);
            for (Path dir : experiments) {
                assertThat(dir.resolve("matrix.yaml")).exists();
                assertThat(dir.resolve("lab.yaml")).exists();
                assertThat(Files.readString(dir.resolve("README.md"))).contains("expect");
            }
        }
    }
}

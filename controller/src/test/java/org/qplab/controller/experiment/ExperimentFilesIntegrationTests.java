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
import tools.jackson.databind.JsonNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/** Every matrix file under experiments/ is one the controller accepts, and expands to the runs it says. */
class ExperimentFilesIntegrationTests extends ControllerIntegrationTest {

    /**
     * The points of the files with excludes, counted by hand from the file (each experiment's README says what is
     * left out and why): everything else is counted from the file itself ({@link #pointsWithoutExcludes}).
     */
    private static final Map<String, Integer> POINTS_AFTER_EXCLUDES = Map.of(
            // 2 qp_sharing x 2 lock_model x 10 threads = 40, less shared + thread_domain at 10 threads
            "2-qp-sharing-and-locks/matrix.yaml", 30,
            // 3 transports x 3 ops x 4 sizes = 36, less UC read (4), UD write and read (8), UD send above 1K (2)
            "4-bandwidth-vs-size/lab.yaml", 22,
            // 3 x 3 x 23 sizes = 207, less UC read (23), UD write and read (46), UD send above 4K (11: 8K..8M)
            "4-bandwidth-vs-size/matrix.yaml", 127,
            // 2 transports x 3 ops x 4 sizes = 24, less UD write and read (8), UD send above 1K (2)
            "7-latency-vs-size/lab.yaml", 14,
            // 2 x 3 x 23 sizes = 138, less UD write and read (46), UD send above 4K (11: 8K..8M)
            "7-latency-vs-size/matrix.yaml", 81);

    /**
     * Runs counted by hand where a point's hosts are not simply the matrix's: nvmeof's transport local runs once
     * on the pair's server, not once per pair (8: 3 transports x 2 rw x 8 iodepths x 4 numjobs x 3 repeats;
     * the lab's 3 x 2 x 2, one pair).
     */
    private static final Map<String, Integer> RUNS = Map.of(
            "8-nvmeof/matrix.yaml", 576,
            "8-nvmeof/lab.yaml", 12);

    static final Path EXPERIMENTS = Path.of(System.getProperty("qplab.test.experiments", "../experiments")).toAbsolutePath();

    static List<Path> matrixFiles() throws IOException {
        try (Stream<Path> files = Files.walk(EXPERIMENTS)) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    @Test
    void everyExperimentFileValidates() throws IOException {
        List<Path> files = matrixFiles();
        assertThat(files).as("matrix files under %s", EXPERIMENTS).hasSizeGreaterThanOrEqualTo(15);
        for (Path file : files) {
            var result = http().post().uri("/api/experiments/validate")
                    .contentType(MediaType.parseMediaType("application/yaml")).bodyValue(Files.readAllBytes(file))
                    .exchange().expectBody(JSON_OBJECT).returnResult();
            Map<String, Object> check = result.getResponseBody();
            assertThat(result.getStatus().value()).as("%s: %s", EXPERIMENTS.relativize(file), check).isEqualTo(200);
            String name = EXPERIMENTS.relativize(file).toString();
            JsonNode matrix = new YAMLMapper().readTree(file.toFile());
            int repeats = matrix.has("repeats") ? matrix.get("repeats").asInt() : 1;
            int points = matrix.has("exclude") ? POINTS_AFTER_EXCLUDES.get(name) : pointsWithoutExcludes(matrix);
            if (matrix.has("search")) { // the search's first points, each on every pair; the rest are planned as it goes
                @SuppressWarnings("unchecked")
                Map<String, Object> source = new YAMLMapper().readValue(file.toFile(), Map.class);
                points *= SearchSpec.of(source).initialPoints(Map.of(), repeats).size();
            }
            assertThat(check).as(name).containsEntry("points", points).containsEntry("runs", points * repeats);
            if (RUNS.containsKey(name)) {
                assertThat(check).as(name).containsEntry("runs", RUNS.get(name));
            }
        }
        assertThat(RUNS.keySet()).as("every file counted by hand is under experiments/")
                .allSatisfy(name -> assertThat(EXPERIMENTS.resolve(name)).exists());
        assertThat(POINTS_AFTER_EXCLUDES.keySet()).as("every file with excludes is under experiments/")
                .allSatisfy(name -> assertThat(EXPERIMENTS.resolve(name)).exists());
    }

    /** Dimensions cross, a zip is one dimension (its lists' length), each host pair or loopback host runs them all. */
    private static int pointsWithoutExcludes(JsonNode matrix) {
        int points = 1;
        for (JsonNode values : matrix.path("dimensions")) {
            points *= values.size();
        }
        for (JsonNode zip : matrix.path("zips")) {
            points *= zip.iterator().next().size();
        }
        JsonNode hosts = matrix.path("hosts");
        if (hosts.has("pairs")) {
            points *= hosts.get("pairs").size();
        } else if (hosts.has("loopback")) {
            points *= hosts.get("loopback").size();
        }
        return points;
    }

    @Test
    void everyReferenceExperimentHasAFullMatrixALabVariantAndAReadme() throws IOException {
        try (Stream<Path> dirs = Files.list(EXPERIMENTS)) {
            List<Path> experiments = dirs.filter(Files::isDirectory).sorted().toList();
            assertThat(experiments).hasSize(9);
            for (Path dir : experiments) {
                assertThat(dir.resolve("matrix.yaml")).exists();
                assertThat(dir.resolve("lab.yaml")).exists();
                assertThat(Files.readString(dir.resolve("README.md"))).contains("expect");
            }
        }
    }
}

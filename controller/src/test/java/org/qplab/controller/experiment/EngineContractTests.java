package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.qplab.agent.engine.Engine;
import org.springframework.http.MediaType;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract between the matrices we publish and the engine that runs them: every point of every matrix
 * under experiments/ is a spec the engine (or, for nvmeof, NvmeofSpec) takes, and checking the largest stays fast.
 */
class EngineContractTests {

    /** A matrix is checked on every submit and on every keystroke of the dashboard's editor. */
    private static final long LARGEST_MATRIX_BUDGET_MS = 1_000;

    private final ObjectMapper json = JsonMapper.builder().build();
    private final MatrixReader reader = new MatrixReader(json);
    private final MatrixExpander expander = new MatrixExpander(json, 10_000);

    @Test
    void everyPointOfEveryPublishedMatrixPassesTheEnginesCheck() throws IOException {
        var files = ExperimentFilesIntegrationTests.matrixFiles();
        assertThat(files).hasSizeGreaterThanOrEqualTo(15);
        for (Path file : files) {
            Matrix matrix = expand(file);
            Set<Map<String, Object>> points = new LinkedHashSet<>();
            matrix.runs().forEach(run -> points.add(run.params()));
            for (Map<String, Object> point : points) {
                // an nvmeof point is fio's: the agent's NvmeofSpec is its check, as at submit
                assertThat(Parameter.nvmeof(point) ? SpecCheck.nvmeofCheck(point)
                        : Engine.checkSpec(json.writeValueAsString(point))).as("%s: %s", file.getFileName(), point)
                        .isEmpty();
            }
        }
    }

    @Test
    void checksTheLargestPublishedMatrixWithinItsBudget() throws IOException {
        Path largest = null;
        int most = 0;
        for (Path file : ExperimentFilesIntegrationTests.matrixFiles()) {
            int runs = expand(file).runs().size();
            if (runs > most) {
                most = runs;
                largest = file;
            }
        }
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long start = System.nanoTime();
            expand(largest);
            best = Math.min(best, System.nanoTime() - start);
        }
        System.out.printf("validate %s (%d runs): %.1f ms (best of 5, engine check included)%n",
                ExperimentFilesIntegrationTests.EXPERIMENTS.relativize(largest), most, best / 1e6);
        assertThat(best / 1_000_000).as("ms to check %s", largest).isLessThan(LARGEST_MATRIX_BUDGET_MS);
    }

    private Matrix expand(Path file) throws IOException {
        return expander.expand(reader.read(Files.readAllBytes(file), MediaType.parseMediaType("application/yaml")));
    }
}

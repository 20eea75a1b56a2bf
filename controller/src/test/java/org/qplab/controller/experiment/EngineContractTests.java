package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.qplab.engine.provider.Providers;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The contract between the matrices we publish and the engine that runs them: every point of every matrix
 * under experiments/ is a spec the engine (or, for nvmeof, NvmeofSpec) takes, and what checking a matrix costs grows
 * with its distinct points, not with its runs.
 */
class EngineContractTests {

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
                // each point through its provider's own check (an nvmeof point is fio's: NvmeofSpec), as at submit
                assertThat(Providers.of(point).check(point)).as("%s: %s", file.getFileName(), point).isEmpty();
            }
        }
    }

    /**
     * A matrix is checked on every submit and on every keystroke of the dashboard's editor: each distinct point is
     * asked about once (a native call each), however many runs its repeats and host pairs make of it.
     */
    @Test
    void eachDistinctPointIsCheckedOnceHoweverManyRunsTheMatrixMakesOfIt() throws IOException {
        List<Map<String, Object>> asked = new ArrayList<>();
        MatrixExpander counting = new MatrixExpander(json, 1_000_000, new SpecCheck(point -> {
            asked.add(point);
            return SpecCheck.verdict(point);
        }));
        for (Path file : ExperimentFilesIntegrationTests.matrixFiles()) {
            JsonNode source = read(file);
            Matrix matrix = counting.expand(source);
            Set<Map<String, Object>> points = matrix.runs().stream().map(Matrix.RunPoint::params).collect(Collectors.toSet());
            assertThat(asked).as("points asked about in %s", file.getFileName()).hasSize(points.size());
            assertThat(Set.copyOf(asked)).as(file.getFileName().toString()).isEqualTo(points);

            asked.clear();
            ((ObjectNode) source).put("repeats", 10 * source.path("repeats").asInt(1));
            if (source.path("search").has("max_runs")) { // a search's budget counts repeats: it grows with them
                ((ObjectNode) source.get("search")).put("max_runs", 10 * source.get("search").get("max_runs").asInt());
            }
            assertThat(counting.expand(source).runs()).as("%s with ten times its repeats", file.getFileName())
                    .hasSize(10 * matrix.runs().size());
            assertThat(asked).as("points asked about in %s with ten times its repeats", file.getFileName())
                    .hasSize(points.size());
            asked.clear();
        }
    }

    private Matrix expand(Path file) throws IOException {
        return expander.expand(read(file));
    }

    private JsonNode read(Path file) throws IOException {
        return reader.read(Files.readAllBytes(file), MediaType.parseMediaType("application/yaml"));
    }
}

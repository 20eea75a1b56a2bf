package org.qplab.controller.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.StoredExperiments;
import org.qplab.controller.ingest.FrameIngest;
import org.qplab.controller.schedule.RunOutcomes;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/** experiments.csv and runs.csv as a spreadsheet reads them: text that looks like a formula is not one. */
class CsvExportIntegrationTests extends ControllerIntegrationTest {

    private static final String FORMULA = "=HYPERLINK(\"http://x\",\"y\")";

    @Autowired
    private FrameIngest ingest;

    @Autowired
    private RunOutcomes outcomes;

    @Test
    void anExperimentNamedLikeAFormulaIsExportedAsText() {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", FORMULA, "base", Map.of("msg_size", 64, "iterations", 1)))
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(created).containsEntry("name", FORMULA);
        long id = ((Number) created.get("id")).longValue();

        String csv = csv("/api/experiments.csv");
        String line = csv.lines().filter(l -> l.startsWith(id + ",")).findFirst().orElseThrow();
        assertThat(line).startsWith(id + ",\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",QUEUED,1,0,0,");
    }

    @Test
    void runsCsvKeepsNumbersUnquoted() throws Exception {
        long id = new StoredExperiments(http(), jdbc, ingest, outcomes).create("[4096]", 71, 1.0, "csv");
        long runId = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(id).query(Long.class).single();

        String[] lines = csv("/api/experiments/" + id + "/runs.csv").lines().toArray(String[]::new);
        assertThat(lines).hasSize(2);
        assertThat(lines[0]).startsWith("run,repeat,status,").contains(",msg_size,").contains(",bytes,");
        assertThat(lines[1]).startsWith(runId + ",0,FINISHED,")
                .contains("," + StoredExperiments.CYCLES + "," + StoredExperiments.CYCLES + ",")
                .contains(",4096,").doesNotContain("'").doesNotContain("\"");
    }

    private String csv(String path) {
        return http().get().uri(path).exchange().expectStatus().isOk()
                .expectHeader().contentType("text/csv;charset=UTF-8")
                .expectBody(String.class).returnResult().getResponseBody();
    }
}

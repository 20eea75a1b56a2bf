package org.qplab.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.cli.QplabCli.Result;
import org.qplab.testkit.AgentProcess;

/** The scripting entry (./qplab submit|wait|import|list|export) against a running controller and a real agent. */
class QplabCliIntegrationTests extends ControllerIntegrationTest {

    private Result qplab(String... args) throws IOException, InterruptedException {
        return QplabCli.run(port, adminToken(), args);
    }

    @Test
    void submitsWaitsListsAndExportsAnExperiment(@TempDir Path dir) throws Exception {
        Path matrix = dir.resolve("sweep.yaml");
        Files.writeString(matrix, """
                name: cli sweep, 2 sizes
                base: {iterations: 50}
                dimensions: {msg_size: [64, 4K]}
                """);
        try (AgentProcess agent = AgentProcess.start(port, "cli-agent", TOKEN)) {
            Result submitted = qplab("submit", matrix.toString(), "--wait");
            assertThat(submitted.exit()).as("stderr: %s\nagent: %s", submitted.err(), agent.log()).isZero();
            assertThat(submitted.out().strip()).matches("\\d+");
            assertThat(submitted.err()).contains("FINISHED, 2/2 runs done, 0 failed");
            long id = Long.parseLong(submitted.out().strip());

            Result list = qplab("list");
            assertThat(list.exit()).isZero();
            assertThat(list.out().lines()).first().isEqualTo("id,name,status,runs,done,failed,created,finished");
            assertThat(list.out().lines()).anyMatch(l -> l.startsWith(id + ",\"cli sweep, 2 sizes\",FINISHED,2,2,0,"));

            Result csv = qplab("export", String.valueOf(id));
            assertThat(csv.exit()).isZero();
            List<String> lines = csv.out().lines().toList();
            List<String> header = List.of(lines.get(0).split(","));
            assertThat(header).contains("msg_size", "threads", "bw_avg [B/s]", "cycle_median [ns]");
            assertThat(lines).hasSize(3);
            for (String line : lines.subList(1, 3)) {
                String[] cells = line.split(",");
                long run = Long.parseLong(cells[0]);
                double stored = jdbc.sql("SELECT bw_avg_bps FROM run_summary WHERE run_id = ?").param(run)
                        .query(Double.class).single();
                assertThat(Double.parseDouble(cells[header.indexOf("bw_avg [B/s]")])).isEqualTo(stored);
                assertThat(Long.parseLong(cells[header.indexOf("cycles")])).isEqualTo(50);
            }

            Result json = qplab("export", String.valueOf(id), "json");
            assertThat(json.exit()).isZero();
            assertThat(json.out()).startsWith("[").contains("\"msg_size\":4096");
        }
    }

    @Test
    void waitEndsNonZeroForAFailedExperimentAndSubmitShowsEveryViolation(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "base: {threads: 0}\ndimensions: {msg_size: [64]}\nrepeats: -1\n");
        Result refused = qplab("submit", bad.toString());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("HTTP 400", "base.threads", "repeats");

        Result missing = qplab("wait", "987654");
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.err()).contains("HTTP 404");
    }

    @Test
    void importsPerftestOutput() throws Exception {
        Path file = Path.of("src", "test", "resources", "perftest", "ib_write_bw.txt").toAbsolutePath();
        Result imported = qplab("import", file.toString(), "lab write bw, é");
        assertThat(imported.exit()).as(imported.err()).isZero();
        assertThat(imported.err()).contains("imported 1 runs of ib_write_bw");
        long id = Long.parseLong(imported.out().strip());
        assertThat(jdbc.sql("SELECT name FROM experiment WHERE id = ?").param(id).query(String.class).single())
                .isEqualTo("lab write bw, é");
        assertThat(jdbc.sql("SELECT matrix->'imported'->>'file' FROM experiment WHERE id = ?").param(id)
                .query(String.class).single()).isEqualTo("ib_write_bw.txt");
    }

    @Test
    void importsPerftestOutJson() throws Exception {
        Path file = Path.of("src", "test", "resources", "perftest", "ib_read_lat.json").toAbsolutePath();
        Result imported = qplab("import", file.toString());
        assertThat(imported.exit()).as(imported.err()).isZero();
        assertThat(imported.err()).contains("imported 1 runs of ib_read_lat");
        long id = Long.parseLong(imported.out().strip());
        assertThat(jdbc.sql("SELECT matrix->'imported'->>'format' FROM experiment WHERE id = ?").param(id)
                .query(String.class).single()).isEqualTo("out_json");
        assertThat(imported.err()).as("a sound file: nothing repaired").doesNotContain("warning");

        String json = Files.readString(file);
        Path braces = Files.writeString(Files.createTempFile("braces", ".json"), json + "}\n}\n");
        Result repaired = qplab("import", braces.toString());
        assertThat(repaired.exit()).as(repaired.err()).isZero();
        assertThat(repaired.err()).contains("imported 1 runs of ib_read_lat").contains("warning: line "
                + (json.lines().count() + 1) + ": repaired: 2 closing braces after the end of the JSON, left out (some "
                + "perftest versions write them; linux-rdma/perftest#216)\n");
        Long.parseLong(repaired.out().strip());
        Files.delete(braces);

        Path cut = Files.writeString(Files.createTempFile("cut", ".json"), Files.readString(file).substring(0, 200));
        Result refused = qplab("import", cut.toString());
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err()).contains("HTTP 400").contains("\"field\":\"line ").contains("truncated?");
        Files.delete(cut);
    }
}

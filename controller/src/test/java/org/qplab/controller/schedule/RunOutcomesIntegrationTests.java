package org.qplab.controller.schedule;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.analysis.RunHistograms;
import org.qplab.controller.history.Expectations;
import org.qplab.controller.live.LiveRuns;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.ObjectMapper;

@SuppressWarnings("unchecked")
class RunOutcomesIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private RunOutcomes outcomes;
    @Autowired
    private TransactionTemplate tx;
    @Autowired
    private ObjectMapper json;
    @Autowired
    private LiveRuns live;
    @Autowired
    private ScheduleProperties schedule;
    @Autowired
    private RunHistograms histograms;
    @Autowired
    private PairRetests retests;
    @Autowired
    private SearchSteps search;

    @Test
    void anExperimentWhoseLastRunsEndAtTheSameMomentEndsToo() throws Exception {
        ExecutorService agents = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 10; round++) {
                long experiment = experimentWithRunningRuns(4);
                List<Long> runs = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment)
                        .query(Long.class).list();
                CyclicBarrier together = new CyclicBarrier(runs.size());
                List<Future<?>> ends = new ArrayList<>();
                for (long run : runs) {
                    ends.add(agents.submit(() -> {
                        together.await();
                        outcomes.finished(run, "ends-agent", Map.of("cycles", 0), 0);
                        return null;
                    }));
                }
                for (Future<?> end : ends) {
                    end.get();
                }
                assertThat(jdbc.sql("SELECT status FROM experiment WHERE id = ?").param(experiment).query(String.class).single())
                        .as("round %d: every run FINISHED, so is the experiment", round).isEqualTo("FINISHED");
            }
        } finally {
            agents.shutdownNow();
        }
    }

    /** A judgment that fails in the database (which aborts the statement's transaction) never loses the run's end. */
    @Test
    void aRunWhoseJudgmentFailsStillFinishesWithoutAVerdictAndItsExperimentSaysNotJudged() {
        Expectations failing = new Expectations(jdbc, json) {
            @Override
            public void judge(long runId) {
                jdbc.sql("SELECT 1 / 0").query(Integer.class).single();
            }
        };
        RunOutcomes judgingBadly = new RunOutcomes(jdbc, tx, json, live, schedule, histograms, failing, event -> { }, retests, search);
        long experiment = experimentWithRunningRuns(1, ",\"expect\":{\"msg_rate\":\"> 0\"}");
        long run = jdbc.sql("SELECT id FROM run WHERE experiment_id = ?").param(experiment).query(Long.class).single();

        judgingBadly.finished(run, "ends-agent", Map.of("cycles", 0), 0);

        assertThat(jdbc.sql("SELECT status FROM run WHERE id = ?").param(run).query(String.class).single())
                .isEqualTo("FINISHED");
        assertThat(jdbc.sql("SELECT count(*) FROM run_summary WHERE run_id = ?").param(run).query(Long.class).single())
                .as("its summary kept").isEqualTo(1);
        assertThat(jdbc.sql("SELECT count(*) FROM run_expectation WHERE run_id = ?").param(run).query(Long.class).single())
                .isZero();
        Map<String, Object> shown = http().get().uri("/api/experiments/{id}", experiment).exchange().expectStatus().isOk()
                .expectBody(JSON_OBJECT).returnResult().getResponseBody();
        assertThat(shown.get("status")).isEqualTo("FINISHED");
        assertThat((Map<String, Object>) shown.get("expectations")).containsEntry("verdict", "NOT_JUDGED")
                .containsEntry("runsNotJudged", 1).containsEntry("runsPassed", 0);
    }

    private long experimentWithRunningRuns(int n) {
        return experimentWithRunningRuns(n, "");
    }

    private long experimentWithRunningRuns(int n, String more) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"ends\",\"base\":{\"msg_size\":64,\"iterations\":1},\"repeats\":" + n + more + "}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        // the runs are on an agent (this test plays it), so no real agent may take them
        jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'ends-agent', attempt = 1 WHERE experiment_id = ?").param(id).update();
        jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ?").param(id).update();
        return id;
    }
}

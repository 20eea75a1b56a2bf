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
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

class RunOutcomesIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private RunOutcomes outcomes;

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

    private long experimentWithRunningRuns(int n) {
        Map<String, Object> created = http().post().uri("/api/experiments").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"name\":\"ends\",\"base\":{\"msg_size\":64,\"iterations\":1},\"repeats\":" + n + "}")
                .exchange().expectStatus().isCreated().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        long id = ((Number) created.get("id")).longValue();
        // the runs are on an agent (this test plays it), so no real agent may take them
        jdbc.sql("UPDATE run SET status = 'RUNNING', agent_id = 'ends-agent', attempt = 1 WHERE experiment_id = ?").param(id).update();
        jdbc.sql("UPDATE experiment SET status = 'RUNNING' WHERE id = ?").param(id).update();
        return id;
    }
}

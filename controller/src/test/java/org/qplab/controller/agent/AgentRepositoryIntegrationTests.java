package org.qplab.controller.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.springframework.beans.factory.annotation.Autowired;

/** Heartbeats are noted in memory and stored together: what the table and the API show must still be the latest. */
class AgentRepositoryIntegrationTests extends ControllerIntegrationTest {

    @Autowired
    private AgentRepository agents;

    @Test
    void theListShowsEachAgentsLatestHeartbeatAndNoOtherAgentMoves() {
        agents.registered("hb-beating", Map.of("hostname", "hb-beating"));
        agents.registered("hb-silent", Map.of("hostname", "hb-silent"));
        jdbc.sql("UPDATE agent SET last_heartbeat = now() - interval '1 hour' WHERE id IN ('hb-beating', 'hb-silent')").update();

        agents.heartbeat("hb-beating");

        Map<String, OffsetDateTime> seen = new HashMap<>();
        agents.list().forEach(a -> seen.put(a.id(), a.lastHeartbeat()));
        assertThat(Duration.between(seen.get("hb-beating"), OffsetDateTime.now()).abs())
                .as("the beating agent's heartbeat, as listed").isLessThan(Duration.ofSeconds(30));
        assertThat(Duration.between(seen.get("hb-silent"), OffsetDateTime.now()))
                .as("the silent agent keeps its old heartbeat").isGreaterThan(Duration.ofMinutes(59));
    }

    @Test
    void aDisconnectStoresTheHeartbeatNotedBeforeIt() {
        agents.registered("hb-leaving", Map.of("hostname", "hb-leaving"));
        jdbc.sql("UPDATE agent SET last_heartbeat = now() - interval '1 hour' WHERE id = 'hb-leaving'").update();

        agents.heartbeat("hb-leaving");
        agents.disconnected("hb-leaving");

        Map<String, Object> row = jdbc.sql("""
                SELECT connected, extract(epoch FROM now() - last_heartbeat) AS age FROM agent WHERE id = 'hb-leaving'""")
                .query().singleRow();
        assertThat(row.get("connected")).isEqualTo(false);
        assertThat(((Number) row.get("age")).doubleValue())
                .as("seconds since the stored heartbeat (what orphan detection's grace counts from)").isLessThan(30);
    }
}

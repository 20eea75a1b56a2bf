package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.AgentProcess;
import org.qplab.testkit.TestDirs;
import org.springframework.http.MediaType;

/**
 * The hosts inventory's bad input: an address that is neither an IP address nor a DNS name is a 400 naming the
 * field, and a host whose agent (a real agent process, registered under the host's name as a deployed one is) is
 * connected cannot be removed: 409 naming the agent, until the agent is gone. The agent's hello carries what it lacks
 * for NVMe-oF, which the hosts page shows.
 */
class HostInventoryIntegrationTests extends ControllerIntegrationTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void anAddressThatIsNeitherAnIpAddressNorADnsNameIsA400NamingTheFieldAndNothingIsStored() {
        Map<String, String> refused = Map.of(
                "999.1.1.1", "'999.1.1.1' is not an IPv4 address: 999 is over 255",
                "a b", "'a b' has a space at character 2; a DNS name has only letters, digits, hyphens and dots",
                "lab..example", "'lab..example' has an empty label (a dot at the start or two dots in a row)",
                "x".repeat(300), "it is 300 characters long; a DNS name has at most 253",
                "", "the address is missing");
        int i = 0;
        for (Map.Entry<String, String> address : refused.entrySet()) {
            String name = "bad-address-" + i++;
            Map<String, Object> body = http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", name, "address", address.getKey())).exchange()
                    .expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(body).as(address.getKey()).containsEntry("error", "invalid host").containsEntry("violations",
                    List.of(Map.of("field", "address", "message", "must be an IP address or a DNS name: " + address.getValue())));
            http().get().uri("/api/hosts/{name}", name).exchange().expectStatus().isNotFound();
        }
        // a missing address is named too
        http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON).bodyValue(Map.of("name", "no-address"))
                .exchange().expectStatus().isBadRequest().expectBody().jsonPath("$.violations[0].field").isEqualTo("address");

        for (String good : List.of("node-1.lab.example", "198.18.0.11", "2001:db8::11")) {
            String name = "good-" + good.replace(':', '-');
            http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", name, "address", good)).exchange()
                    .expectStatus().isCreated().expectBody().jsonPath("$.address").isEqualTo(good);
            http().delete().uri("/api/hosts/{name}", name).exchange().expectStatus().isNoContent();
        }
    }

    @Test
    void aHostWhoseAgentIsConnectedIsNotRemovedA409NamesTheAgentAndOnceItIsGoneTheHostGoes() throws Exception {
        String id = "inventory-live";
        String url = "ws://127.0.0.1:" + port + "/agent";
        TestDirs.delete(AgentProcess.stateOf(url, id)); // a token an earlier build's database issued is unknown here
        http().post().uri("/api/hosts").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("name", id, "address", "127.0.0.1")).exchange().expectStatus().isCreated();
        try (AgentProcess agent = AgentProcess.start(port, id, TOKEN)) {
            Await.until("agent " + id + " is connected", WAIT, () -> Boolean.TRUE.equals(host(id).get("agentConnected")),
                    agent::log);

            Map<String, Object> refused = http().delete().uri("/api/hosts/{name}", id).exchange()
                    .expectStatus().isEqualTo(409).expectBody(JSON_OBJECT).returnResult().getResponseBody();
            assertThat(refused).containsEntry("error", "host " + id + " has a live agent: agent '" + id + "' is "
                    + "connected; stop it first (POST /api/hosts/" + id + "/stop, or end it on the host), then remove "
                    + "the host");
            assertThat(host(id)).as("still in the inventory").containsEntry("state", "ADDED");

            // what the hosts page shows of NVMe-oF: each side's and transport's missing pieces, the modules' states
            @SuppressWarnings("unchecked")
            Map<String, Object> nvmeof = (Map<String, Object>) ((Map<String, Object>) host(id).get("facts")).get("nvmeof");
            assertThat(nvmeof).as("the hello's nvmeof facts").containsKeys("missing", "modules");
            assertThat((Map<String, Object>) nvmeof.get("missing")).containsOnlyKeys("target", "initiator");
        }
        Await.until("agent " + id + " is gone", WAIT, () -> http().delete().uri("/api/hosts/{name}", id).exchange()
                .returnResult(String.class).getStatus().value() == 204, () -> host(id).toString());
        http().get().uri("/api/hosts/{name}", id).exchange().expectStatus().isNotFound();
        http().delete().uri("/api/hosts/{name}", id).exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("no host " + id);
    }

    private Map<String, Object> host(String name) {
        return http().get().uri("/api/hosts/{name}", name).exchange().expectStatus().isOk().expectBody(JSON_OBJECT)
                .returnResult().getResponseBody();
    }
}

package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.Await;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.controller.agent.AgentRegistry;
import org.qplab.testkit.AgentProcess;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;

/**
 * Submitting nvmeof matrices to a real controller: bad fio parameters are one 400 listing each, named where the
 * matrix sets it; and real agents on this machine (whose kernel has no nvmet modules and no configfs mounted)
 * report what they lack in their hello, so a point that needs them is refused at submit naming the host and the
 * module, with nothing stored.
 */
class NvmeofSubmitIntegrationTests extends ControllerIntegrationTest {

    private static final MediaType YAML = MediaType.parseMediaType("application/yaml");

    @Autowired
    private AgentRegistry registry;

    @Test
    void badFioParametersAreOne400NamingEachField() {
        List<Map<String, Object>> violations = refused("""
                name: bad nvmeof
                base: {provider: nvmeof, iodepth: 0, bs: 1000}
                dimensions: {rw: [randread, randomread]}
                hosts: {pairs: [[nobody-a, nobody-b]]}
                """);
        assertThat(violations).extracting(v -> v.get("field"))
                .contains("base.iodepth", "base.bs", "dimensions.rw[1]");
        assertThat(message(violations, "base.bs")).contains("512");
        assertThat(message(violations, "dimensions.rw[1]")).contains("randomread").contains("randread").contains("randrw");
        assertThat(violations).extracting(v -> (String) v.get("field")).as("only the fields the matrix got wrong")
                .allMatch(f -> f.equals("base.iodepth") || f.equals("base.bs") || f.equals("dimensions.rw[1]"));
    }

    @Test
    void aTargetWithoutNvmetRdmaIsRefusedNamingTheHostAndTheModule() throws Exception {
        long experiments = count("experiment");
        try (AgentProcess a = AgentProcess.start(port, "nvme-initiator", TOKEN);
             AgentProcess b = AgentProcess.start("ws://127.0.0.1:" + port + "/agent", "nvme-target", TOKEN,
                     List.of("--nvmeof-backing", "/srv/listed.img"))) {
            for (String id : List.of("nvme-initiator", "nvme-target")) {
                Await.until(id + " is connected", Duration.ofSeconds(90), () -> {
                    assertThat(a.process().isAlive() && b.process().isAlive()).as("both agents running; logs:\n%s\n%s",
                            a.log(), b.log()).isTrue();
                    return registry.connectedFacts(id) != null;
                }, () -> "agent logs:\n" + a.log() + "\n" + b.log());
            }
            List<Map<String, Object>> pair = refused("""
                    name: nvmeof over rdma
                    base: {provider: nvmeof, transport: rdma}
                    hosts: {pairs: [[nvme-initiator, nvme-target]]}
                    """);
            assertThat(pair).extracting(v -> v.get("field")).containsOnly("hosts");
            assertThat(pair).extracting(v -> (String) v.get("message"))
                    .anySatisfy(m -> assertThat(m).startsWith("server nvme-target cannot be an NVMe-oF target over rdma: missing")
                            .contains("module nvmet-rdma"))
                    .anySatisfy(m -> assertThat(m).startsWith("client nvme-initiator cannot be an NVMe-oF initiator over rdma: missing")
                            .contains("module nvme-rdma"));

            List<Map<String, Object>> local = refused("""
                    name: nvmeof local
                    base: {provider: nvmeof, transport: local, backing: file, backing_path: /srv/unlisted.img}
                    hosts: {loopback: [nvme-target]}
                    """);
            assertThat(message(local, "base.backing_path")).isEqualTo("host nvme-target does not offer "
                    + "/srv/unlisted.img as a backing file (its nvmeof.backing_paths, agent option --nvmeof-backing: "
                    + "/srv/listed.img)");
            // fio on a listed file needs neither null_blk nor configfs: the hello's null_blk pieces do not refuse it
            assertThat(local).extracting(v -> (String) v.get("message"))
                    .noneMatch(m -> m.contains("module null_blk") || m.contains("configfs"));

            List<Map<String, Object>> nullBlk = refused("""
                    name: nvmeof local on null_blk
                    base: {provider: nvmeof, transport: local}
                    hosts: {loopback: [nvme-target]}
                    """);
            assertThat(nullBlk).extracting(v -> (String) v.get("message")) // this host's kernel has no null_blk
                    .anySatisfy(m -> assertThat(m).startsWith("host nvme-target cannot be an NVMe-oF target over local: missing")
                            .contains("module null_blk"));
        }
        assertThat(count("experiment")).as("experiments stored").isEqualTo(experiments);
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> refused(String matrix) {
        Map<String, Object> body = http().post().uri("/api/experiments").contentType(YAML).bodyValue(matrix).exchange()
                .expectStatus().isBadRequest().expectBody(JSON_OBJECT).returnResult().getResponseBody();
        return (List<Map<String, Object>>) body.get("violations");
    }

    private static String message(List<Map<String, Object>> violations, String field) {
        return violations.stream().filter(v -> field.equals(v.get("field"))).map(v -> (String) v.get("message"))
                .findFirst().orElseThrow(() -> new AssertionError("no violation at " + field + " in " + violations));
    }
}

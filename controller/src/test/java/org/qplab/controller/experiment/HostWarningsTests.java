package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

/**
 * A matrix judged as a controller judges it: against every connected agent (for points on any agent) and the hosts it
 * knows. A connected host that cannot run a point refuses it; a host that is not connected only warns.
 */
class HostWarningsTests {

    private static final Map<String, Object> ENGINE = Map.of("providers", List.of("tcp", "verbs"));
    private static final Map<String, Object> NO_DEVICE = Map.of("hostname", "bare", "engine", ENGINE,
            "rdma_devices", List.of(), "rdma_unavailable", "no RDMA device on this host");
    private static final Map<String, Object> RXE = Map.of("hostname", "rxe", "engine", ENGINE, "rdma_devices",
            List.of(Map.of("name", "rxe0", "xrc", false, "atomic_cap", "IBV_ATOMIC_NONE",
                    "ports", List.of(Map.of("port", 1, "state", "ACTIVE")))));
    private static final OffsetDateTime YESTERDAY = OffsetDateTime.of(2026, 11, 28, 9, 30, 0, 0, ZoneOffset.UTC);

    @Test
    void aVerbsMatrixOnAnyAgentIsRefusedWhenNoConnectedAgentHasAnRdmaDevice() {
        YamlMatrices matrices = YamlMatrices.asAController(Map.of("bare", NO_DEVICE), Map.of());
        assertThat(matrices.violationsOf("""
                name: v
                base: {provider: verbs}
                dimensions: {msg_size: [64, 4096]}
                repeats: 18
                """)).containsExactly(new Violation("hosts", "no connected agent can run it (hosts: any agent): "
                + "host bare cannot run provider verbs: no RDMA device on this host"));
        assertThat(matrices.expand("name: t\nbase: {provider: tcp, msg_size: 64}\n").warnings()).as("tcp-only loopback").isEmpty();
    }

    @Test
    void whenSomeConnectedAgentsCanRunItTheOthersAreAWarning() {
        YamlMatrices matrices = YamlMatrices.asAController(Map.of("bare", NO_DEVICE, "rxe", RXE), Map.of());
        Matrix matrix = matrices.expand("name: v\nbase: {provider: verbs, msg_size: 64}\n");
        assertThat(matrix.runs()).hasSize(1);
        assertThat(matrix.warnings()).containsExactly(new Violation("hosts", "runs on any agent go only to the agents "
                + "that can run them, not to bare: host bare cannot run provider verbs: no RDMA device on this host"));
        assertThat(matrices.violationsOf("name: v\nbase: {provider: verbs, msg_size: 64}\n"
                + "dimensions: {transport: [rc, xrc]}\n")).as("xrc: neither agent, each for its own reason")
                .containsExactly(new Violation("hosts", "no connected agent can run it (hosts: any "
                        + "agent): host bare cannot run provider verbs: no RDMA device on this host; host rxe cannot "
                        + "run transport xrc: rxe0 does not report IBV_DEVICE_XRC"));
    }

    @Test
    void namedHostsThatAreNotConnectedWarnAndTheirLastHelloIsJudged() {
        YamlMatrices matrices = YamlMatrices.asAController(Map.of("rxe", RXE),
                Map.of("bare", new HostCapabilities.Offline(NO_DEVICE, YESTERDAY),
                        "inventoried", new HostCapabilities.Offline(null, null)));
        Matrix matrix = matrices.expand("""
                name: v
                base: {provider: verbs, msg_size: 64}
                hosts: {pairs: [[rxe, bare], [rxe, inventoried], [rxe, nowhere]]}
                """);
        assertThat(matrix.runs()).hasSize(3);
        assertThat(matrix.warnings()).containsExactly(
                new Violation("hosts", "host bare is offline (its agent was last heard at 2026-11-28T09:30Z): its "
                        + "runs wait until it reconnects"),
                new Violation("hosts", "host inventoried is offline: its runs wait until it reconnects"),
                new Violation("hosts", "host nowhere is unknown: no agent of that name has connected to this "
                        + "controller, and the hosts inventory has none; its runs wait until one connects"),
                new Violation("hosts", "by its last hello, server bare cannot run provider verbs: no RDMA device on "
                        + "this host"));
        assertThat(matrices.violationsOf("name: v\nbase: {provider: verbs, op: atomic_fadd, msg_size: 8}\n"
                + "hosts: {loopback: [rxe]}\n")).containsExactly(new Violation("base.op", "host rxe cannot run op "
                + "atomic_fadd: rxe0 reports atomic_cap IBV_ATOMIC_NONE (no RDMA atomics)"));
    }

    @Test
    void noAgentConnectedIsAWarningAndAMatrixCheckedWithoutAControllerHasNone() {
        String tcp = "name: t\nbase: {provider: tcp, msg_size: 64}\n";
        assertThat(YamlMatrices.asAController(Map.of(), Map.of()).expand(tcp).warnings())
                .containsExactly(new Violation("hosts", "no agent is connected: the runs wait until one connects"));
        assertThat(YamlMatrices.withoutHosts().expand(tcp).warnings()).isEmpty();
    }
}

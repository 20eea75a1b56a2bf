package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A verbs point judged against a connected host's RDMA devices as its hello lists them (the engine's inventory,
 * qpb_devices): what qpb_plan_run would refuse on that device is refused before the run is queued, naming the host.
 */
class VerbsHostFactsTests {

    private static final ProviderSpec.Side HOST = new ProviderSpec.Side("host", "h1", true);
    private static final Map<String, Object> ENGINE = Map.of("providers", List.of("tcp", "verbs"));

    /** rxe as the Soft-RoCE lab reports it: no XRC, no atomics, no thread domains, no inline data. */
    private static Map<String, Object> rxe(String name, String portState) {
        return Map.of("name", name, "xrc", false, "atomic_cap", "IBV_ATOMIC_NONE", "thread_domain", false,
                "max_inline_data", 0, "ports", List.of(Map.of("port", 1, "state", portState)));
    }

    private static final Map<String, Object> MLX = Map.of("name", "mlx5_0", "xrc", true, "atomic_cap",
            "IBV_ATOMIC_HCA", "thread_domain", true, "max_inline_data", 220,
            "ports", List.of(Map.of("port", 1, "state", "ACTIVE")));

    private static List<String> refused(Map<String, Object> point, Map<String, Object> facts) {
        return EngineSpec.ENGINE.hostRefusals(point, HOST, facts).stream()
                .map(v -> v.field() + ": " + v.message()).toList();
    }

    @Test
    void aHostWithoutAnRdmaDeviceCannotRunVerbsButCanRunTcp() {
        Map<String, Object> none = Map.of("engine", ENGINE, "rdma_devices", List.of(),
                "rdma_unavailable", "no RDMA device on this host");
        assertThat(refused(Map.of("provider", "verbs"), none))
                .containsExactly("hosts: host h1 cannot run provider verbs: no RDMA device on this host");
        assertThat(refused(Map.of("provider", "verbs"), Map.of("engine", ENGINE, "rdma_devices", List.of())))
                .containsExactly("hosts: host h1 cannot run provider verbs: its agent reports no RDMA device");
        assertThat(refused(Map.of("provider", "tcp"), none)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs"), Map.of("engine", ENGINE)))
                .as("devices not listed (an older agent): its engine refuses at prepare").isEmpty();
    }

    @Test
    void whatTheChosenDeviceLacksIsRefusedAtTheKeyThatAsksForIt() {
        Map<String, Object> facts = Map.of("engine", ENGINE, "rdma_devices", List.of(rxe("rxe0", "ACTIVE")));
        assertThat(refused(Map.of("provider", "verbs", "transport", "xrc", "op", "atomic_fadd",
                "lock_model", "thread_domain", "inline_size", 64L), facts)).containsExactly(
                "transport: host h1 cannot run transport xrc: rxe0 does not report IBV_DEVICE_XRC",
                "op: host h1 cannot run op atomic_fadd: rxe0 reports atomic_cap IBV_ATOMIC_NONE (no RDMA atomics)",
                "lock_model: host h1 cannot run lock_model thread_domain: rxe0 has no thread domains",
                "inline_size: host h1 cannot run inline_size 64 B: rxe0 takes at most max_inline_data 0 B");
        assertThat(refused(Map.of("provider", "verbs", "transport", "rc", "op", "write"), facts)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "ib_port", 2L), facts))
                .containsExactly("ib_port: host h1 cannot run ib_port 2: rxe0 has no port 2");
    }

    @Test
    void odpIsRefusedOnADeviceWithoutOnDemandPagingForThePointsOpAndTransport() {
        Map<String, Object> noOdp = Map.of("name", "rxe0", "odp", Map.of("supported", false, "implicit", false,
                "rc", List.of(), "uc", List.of(), "ud", List.of(), "xrc", List.of()),
                "ports", List.of(Map.of("port", 1, "state", "ACTIVE")));
        Map<String, Object> facts = Map.of("engine", ENGINE, "rdma_devices", List.of(noOdp));
        assertThat(refused(Map.of("provider", "verbs", "odp", true), facts)).containsExactly(
                "odp: host h1 cannot run odp: rxe0 does not report IBV_ODP_SUPPORT (no on-demand paging)");
        assertThat(refused(Map.of("provider", "verbs", "odp", false), facts)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs"), facts)).as("odp defaults to false").isEmpty();

        Map<String, Object> mlx = Map.of("name", "mlx5_0", "odp", Map.of("supported", true, "implicit", true,
                "rc", List.of("send", "recv", "write", "read"), "uc", List.of(), "ud", List.of("send"),
                "xrc", List.of("send", "srq_recv")), "ports", List.of(Map.of("port", 1, "state", "ACTIVE")));
        Map<String, Object> onMlx = Map.of("engine", ENGINE, "rdma_devices", List.of(mlx));
        assertThat(refused(Map.of("provider", "verbs", "odp", true), onMlx)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "odp", true, "op", "read"), onMlx)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "odp", true, "transport", "xrc"), onMlx))
                .as("an XRC send receives through an SRQ").isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "odp", true, "op", "atomic_fadd"), onMlx)).containsExactly(
                "odp: host h1 cannot run odp: mlx5_0 has no on-demand paging for op atomic_fadd over rc (its rc ODP "
                        + "ops: send, recv, write, read; missing atomic)");
        assertThat(refused(Map.of("provider", "verbs", "odp", true, "transport", "ud"), onMlx)).containsExactly(
                "odp: host h1 cannot run odp: mlx5_0 has no on-demand paging for op send over ud (its ud ODP ops: "
                        + "send; missing recv)");
        assertThat(refused(Map.of("provider", "verbs", "odp", true, "srq", "shared"), onMlx)).containsExactly(
                "odp: host h1 cannot run odp: mlx5_0 has no on-demand paging for op send over rc (its rc ODP ops: "
                        + "send, recv, write, read; missing srq_recv)");
        assertThat(refused(Map.of("provider", "verbs", "odp", true), Map.of("engine", ENGINE, "rdma_devices",
                List.of(rxe("rxe0", "ACTIVE"))))).as("a device entry without odp (an older agent)").isEmpty();
    }

    @Test
    void postApiWrIsRefusedWhereTheDeviceHasNoExtendedQpApiUnlessLeftToTheEngine() {
        Map<String, Object> siw = Map.of("name", "siw0", "wr_api", false, "ports", List.of(Map.of("port", 1,
                "state", "ACTIVE")));
        Map<String, Object> facts = Map.of("engine", ENGINE, "rdma_devices", List.of(siw));
        assertThat(refused(Map.of("provider", "verbs", "post_api", "wr"), facts)).containsExactly(
                "post_api: host h1 cannot run post_api wr: siw0 has no extended QP API (ibv_qp_ex; use post_api legacy)");
        assertThat(refused(Map.of("provider", "verbs"), facts)).as("the default falls back to legacy").isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "post_api", "legacy"), facts)).isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "post_api", "wr"), Map.of("engine", ENGINE, "rdma_devices",
                List.of(MLX)))).as("an agent that does not say").isEmpty();
    }

    /** siw as the lab's VMs report it: iWARP, no atomics. */
    @Test
    void anIwarpDeviceTakesRcThroughRdmaCmOnly() {
        Map<String, Object> siw = Map.of("name", "siw0", "transport", "iwarp", "atomic_cap", "IBV_ATOMIC_NONE",
                "xrc", false, "ports", List.of(Map.of("port", 1, "state", "ACTIVE")));
        Map<String, Object> facts = Map.of("engine", ENGINE, "rdma_devices", List.of(siw));
        for (String transport : List.of("ud", "uc", "xrc")) {
            assertThat(refused(Map.of("provider", "verbs", "transport", transport, "rdma_cm", true), facts))
                    .containsExactly("transport: host h1 cannot run transport " + transport + ": siw0 is an iWARP "
                            + "device (iWARP has reliable connections only: use transport rc)");
        }
        assertThat(refused(Map.of("provider", "verbs", "transport", "rc"), facts)).containsExactly(
                "rdma_cm: host h1 cannot run rdma_cm false: siw0 is an iWARP device, whose QPs connect only through "
                        + "rdma_cm (use rdma_cm true)");
        assertThat(refused(Map.of("provider", "verbs", "rdma_cm", true, "op", "atomic_fadd"), facts)).containsExactly(
                "op: host h1 cannot run op atomic_fadd: siw0 reports atomic_cap IBV_ATOMIC_NONE (no RDMA atomics)");
        assertThat(refused(Map.of("provider", "verbs", "rdma_cm", true, "op", "read", "bidirectional", false), facts))
                .isEmpty();
        assertThat(refused(Map.of("provider", "verbs"), Map.of("engine", ENGINE, "rdma_devices",
                List.of(rxe("rxe0", "ACTIVE"))))).as("RoCE needs no rdma_cm").isEmpty();
    }

    @Test
    void theDeviceIsTheNamedOneElseTheFirstWithAnActivePort() {
        Map<String, Object> facts = Map.of("engine", ENGINE, "rdma_devices", List.of(rxe("rxe0", "DOWN"), MLX));
        assertThat(refused(Map.of("provider", "verbs", "transport", "xrc"), facts))
                .as("mlx5_0: the first with port 1 active").isEmpty();
        assertThat(refused(Map.of("provider", "verbs", "transport", "xrc", "device", "rxe0"), facts))
                .containsExactly("transport: host h1 cannot run transport xrc: rxe0 does not report IBV_DEVICE_XRC");
        assertThat(refused(Map.of("provider", "verbs", "device", "mlx5_9"), facts))
                .containsExactly("device: host h1 has no RDMA device mlx5_9 (its devices: rxe0, mlx5_0)");
    }

    @Test
    void anEngineWithoutVerbsIsRefusedOnceWithItsReason() {
        Map<String, Object> tcpOnly = Map.of("engine", Map.of("providers", List.of("tcp"),
                "verbs_unavailable", "built without rdma-core's headers"), "rdma_devices", List.of(),
                "rdma_unavailable", "built without rdma-core's headers");
        assertThat(refused(Map.of("provider", "verbs"), tcpOnly))
                .containsExactly("hosts: host h1 cannot run provider verbs: built without rdma-core's headers");
    }
}

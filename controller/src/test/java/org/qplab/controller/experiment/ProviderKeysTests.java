package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;
import org.qplab.engine.provider.Providers;
import tools.jackson.databind.node.JsonNodeFactory;

/** The parameters a matrix may set, read from the providers' specs: the engine's schema, then nvmeof's keys. */
class ProviderKeysTests {

    @Test
    void listsTheEnginesMatrixKeysThenNvmeofsInTheOrderRefusalsShowThem() {
        assertThat(ProviderKeys.knownKeys()).isEqualTo("provider, op, mode, threads, qps_per_thread, msg_size, "
                + "iterations, duration_ms, warmup_cycles, rate_limit, tx_depth, interval_ms, trace_first, "
                + "trace_every, ring_capacity, verify, bidirectional, tcp_nodelay, device, ib_port, gid_index, "
                + "transport, srq, inline_size, signal_every, post_list, rx_depth, cq_mode, mr_mode, "
                + "relaxed_ordering, buffers, odp, polling, target_wait, lock_model, mtu, rdma_cm, qp_sharing, post_api, "
                + "backing, backing_path, backing_size, rw, rwmixread, bs, "
                + "iodepth, numjobs, ioengine, runtime_ms, size, direct");
    }

    @Test
    void givesEachKeyItsProvidersChoicesAndType() {
        assertThat(ProviderKeys.byKey("provider").orElseThrow().choices()).containsExactly("tcp", "verbs", "nvmeof");
        assertThat(ProviderKeys.byKey("transport").orElseThrow())
                .isEqualTo(new ProviderKey("transport", ProviderKey.Kind.CHOICE,
                        List.of("rc", "uc", "ud", "xrc", "rdma", "tcp", "local"), List.of("verbs", "nvmeof")));
        assertThat(ProviderKeys.byKey("msg_size").orElseThrow().kind()).isEqualTo(ProviderKey.Kind.SIZE);
        assertThat(ProviderKeys.byKey("inline_size").orElseThrow().kind()).isEqualTo(ProviderKey.Kind.SIZE);
        assertThat(ProviderKeys.byKey("bs").orElseThrow())
                .isEqualTo(new ProviderKey("bs", ProviderKey.Kind.SIZE, List.of(), List.of("nvmeof")));
        assertThat(ProviderKeys.byKey("device").orElseThrow())
                .isEqualTo(new ProviderKey("device", ProviderKey.Kind.TEXT, List.of(), List.of("verbs", "nvmeof")));
        assertThat(ProviderKeys.byKey("threads").orElseThrow().providers()).containsExactly("tcp", "verbs");
        assertThat(ProviderKeys.byKey("role")).isEmpty();
        assertThat(ProviderKeys.byKey("interval_ring")).isEmpty();
    }

    @Test
    void readsDefaultsFromTheEngineAndNvmeofSpec() {
        assertThat(ProviderKeys.engineDefault("provider")).isEqualTo("tcp");
        assertThat(ProviderKeys.engineDefault("threads")).isEqualTo(1L);
        assertThat(ProviderKeys.engineDefault("interval_ms")).isEqualTo(100L);
        assertThat(ProviderKeys.engineDefault("transport")).isEqualTo("rc");
        assertThat(ProviderKeys.engineDefault("tcp_nodelay")).isEqualTo(true);
        assertThatThrownBy(() -> ProviderKeys.engineDefault("msg_size")).hasMessageContaining("msg_size");
        Map<String, Object> nvmeof = Map.of("provider", "nvmeof");
        assertThat(Providers.of(nvmeof).explicitDefaults(nvmeof)).containsEntry("transport", "rdma")
                .containsEntry("bs", 4096L).containsEntry("interval_ms", 1000L);
        assertThat(Providers.of(nvmeof).timing(nvmeof).planned()).hasMillis(10_000);
    }

    @Test
    void parsesSizesWithSuffixesAndRefusesUnknownChoices() {
        List<Violation> violations = new ArrayList<>();
        ProviderKey msgSize = ProviderKeys.byKey("msg_size").orElseThrow();
        assertThat(msgSize.parse(JsonNodeFactory.instance.stringNode("4K"), "base.msg_size", violations))
                .isEqualTo(4096L);
        ProviderKeys.byKey("srq").orElseThrow()
                .parse(JsonNodeFactory.instance.stringNode("perthread"), "base.srq", violations);
        assertThat(violations).containsExactly(new Violation("base.srq",
                "must be one of [none, per_thread, shared], got \"perthread\"; did you mean per_thread?"));
    }
}

package org.qplab.engine.provider;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.engine.EngineSpec;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.SpecKey;
import org.qplab.engine.SpecViolation;
import org.qplab.engine.nvmeof.NvmeofProviderSpec;

/** The providers as whoever plans a run asks them: by a point's provider key, never by a name compared elsewhere. */
class ProvidersTests {

    @Test
    void findsEachProviderByItsPointsProviderKey() {
        assertThat(Providers.of(Map.of("provider", "tcp"))).isSameAs(EngineSpec.ENGINE);
        assertThat(Providers.of(Map.of("provider", "verbs"))).isSameAs(EngineSpec.ENGINE);
        assertThat(Providers.of(Map.of("provider", "nvmeof"))).isSameAs(NvmeofProviderSpec.NVMEOF);
        assertThat(Providers.of(Map.of())).as("unset: the engine's default, tcp").isSameAs(EngineSpec.ENGINE);
        assertThat(Providers.find(Map.of("provider", "perftest"))).as("an import's").isEmpty();
        assertThat(Providers.of(Map.of("provider", "nope"))).as("the engine's check names the choices")
                .isSameAs(EngineSpec.ENGINE);
        assertThat(Providers.of(Map.of("provider", "nope")).check(Map.of("provider", "nope", "msg_size", 64L)))
                .extracting(SpecViolation::field).contains("provider");
    }

    @Test
    void everyKeyHasOneDefaultPerProviderAndEachProviderCountsItsOwnCycles() {
        for (ProviderSpec spec : Providers.all()) {
            List<String> names = spec.keys().stream().map(SpecKey::name).toList();
            assertThat(names).as("%s's keys, each once", spec.providers()).doesNotHaveDuplicates();
            spec.keys().forEach(key -> assertThat(spec.providers()).as(key.name()).containsAll(key.providers()));
        }
        assertThat(EngineSpec.ENGINE.counts()).isEqualTo(ProviderSpec.Counts.MESSAGES);
        assertThat(NvmeofProviderSpec.NVMEOF.counts()).isEqualTo(ProviderSpec.Counts.IOS);
        assertThat(EngineSpec.ENGINE.explicitDefaults(Map.of("provider", "verbs"))).containsEntry("transport", "rc")
                .containsEntry("threads", 1L);
        assertThat(EngineSpec.ENGINE.explicitDefaults(Map.of("provider", "tcp"))).doesNotContainKey("transport");
        assertThat(NvmeofProviderSpec.NVMEOF.explicitDefaults(Map.of())).containsEntry("provider", "nvmeof")
                .containsEntry("bs", 4096L).containsEntry("interval_ms", 1000L);
    }

    @Test
    void saysWhereAndHowLongAPointRuns() {
        Map<String, Object> fabric = Map.of("provider", "nvmeof", "transport", "tcp");
        Map<String, Object> local = Map.of("provider", "nvmeof", "transport", "local");
        assertThat(Providers.of(fabric).pairOnly(fabric)).startsWith("nvmeof over rdma or tcp is a pair run");
        assertThat(Providers.of(local).pairOnly(local)).isNull();
        assertThat(Providers.of(local).onServerAlone(local)).isTrue();
        Map<String, Object> bidirectional = Map.of("provider", "verbs", "bidirectional", true);
        assertThat(EngineSpec.ENGINE.pairOnly(bidirectional)).startsWith("bidirectional runs are client/server pairs");
        assertThat(EngineSpec.ENGINE.connectionLimit(Map.of("provider", "tcp"))).isEqualTo(65_536L);
        assertThat(EngineSpec.ENGINE.connectionLimit(Map.of("provider", "verbs"))).isNull();

        assertThat(EngineSpec.ENGINE.timing(Map.of("duration_ms", 5000L)))
                .isEqualTo(new ProviderSpec.Timing("duration_ms", Duration.ofSeconds(5), Duration.ZERO, null));
        assertThat(EngineSpec.ENGINE.timing(Map.of("iterations", 5000L)).planned()).as("by count").isNull();
        assertThat(NvmeofProviderSpec.NVMEOF.timing(fabric)).isEqualTo(new ProviderSpec.Timing("runtime_ms",
                Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(90)));
        assertThat(NvmeofProviderSpec.NVMEOF.timing(Map.of("size", 1L << 30)).planned()).as("by size").isNull();
    }

    @Test
    void judgesAConnectedHostFromItsHelloFacts() {
        Map<String, Object> tcpOnly = Map.of("engine", Map.of("providers", List.of("tcp"),
                "verbs_unavailable", "built without rdma-core's headers"));
        assertThat(EngineSpec.ENGINE.hostRefusals(Map.of("provider", "verbs"),
                new ProviderSpec.Side("server", "h1", true), tcpOnly)).extracting(SpecViolation::message)
                .containsExactly("server h1 cannot run provider verbs: built without rdma-core's headers");
        assertThat(EngineSpec.ENGINE.hostRefusals(Map.of("provider", "tcp"),
                new ProviderSpec.Side("host", "h1", true), tcpOnly)).isEmpty();
        assertThat(EngineSpec.ENGINE.hostRefusals(Map.of("provider", "verbs"),
                new ProviderSpec.Side("host", "h1", true), null)).as("not connected: its agent refuses").isEmpty();

        Map<String, Object> point = Map.of("provider", "nvmeof", "transport", "rdma");
        Map<String, Object> noTarget = Map.of("nvmeof", Map.of("missing",
                Map.of("target", Map.of("rdma", List.of("module nvmet-rdma")), "initiator", Map.of())));
        assertThat(NvmeofProviderSpec.NVMEOF.hostRefusals(point, new ProviderSpec.Side("server", "t", true), noTarget))
                .extracting(SpecViolation::message)
                .containsExactly("server t cannot be an NVMe-oF target over rdma: missing module nvmet-rdma");
        assertThat(NvmeofProviderSpec.NVMEOF.hostRefusals(point, new ProviderSpec.Side("client", "i", false),
                noTarget)).isEmpty();
        assertThat(NvmeofProviderSpec.NVMEOF.hostRefusals(point, new ProviderSpec.Side("client", "old", false),
                Map.of("hostname", "old"))).extracting(SpecViolation::message).singleElement().asString()
                .startsWith("client old cannot be an NVMe-oF initiator over rdma: its agent reports no NVMe-oF");
    }
}

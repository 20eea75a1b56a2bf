package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;

/**
 * verbs points on named hosts whose connected agents' engines do not offer the verbs provider (their hello's
 * engine facts: an engine built without rdma-core's headers, or libibverbs not loadable) are refused at submit with
 * the engine's own reason; tcp points on the same hosts, and hosts whose agents are offline, are not.
 */
class VerbsHostsMatrixTests {

    private static final String NO_HEADERS = "this engine was built without rdma-core's headers: the verbs provider "
            + "needs libibverbs-dev and librdmacm-dev (dnf: rdma-core-devel) at build time; install them and rebuild";
    private static final String NO_LIBIBVERBS = "provider verbs needs libibverbs.so.1 (rdma-core; Debian: libibverbs1 "
            + "ibverbs-providers): libibverbs.so.1: cannot open shared object file: No such file or directory";

    /** tcponly: built without the headers; nolib: built with them, no libibverbs at run time; rdma: both providers. */
    private static final Map<String, Map<String, Object>> CONNECTED = Map.of(
            "tcponly", Map.of("hostname", "tcponly", "engine", Map.of("abi", 2, "providers", List.of("tcp"),
                    "verbs_unavailable", NO_HEADERS)),
            "nolib", Map.of("hostname", "nolib", "engine", Map.of("abi", 2, "providers", List.of("tcp"),
                    "verbs_unavailable", NO_LIBIBVERBS)),
            "rdma", Map.of("hostname", "rdma", "engine", Map.of("abi", 2, "providers", List.of("tcp", "verbs"))),
            "old", Map.of("hostname", "old"));
    private final YamlMatrices matrices = YamlMatrices.withHosts(CONNECTED::get);

    @Test
    void aVerbsPointOnAHostBuiltWithoutRdmaCoreHeadersIsRefusedNamingThePackages() {
        List<Violation> violations = matrices.violationsOf("""
                name: v
                base: {provider: verbs, msg_size: 4096}
                hosts: {pairs: [[rdma, tcponly], [nolib, rdma], [rdma, offline]]}
                """);
        assertThat(violations).extracting(Violation::field).containsOnly("hosts");
        assertThat(violations).extracting(Violation::message).containsExactlyInAnyOrder(
                "server tcponly cannot run provider verbs: " + NO_HEADERS,
                "client nolib cannot run provider verbs: " + NO_LIBIBVERBS);
    }

    @Test
    void aLoopbackHostIsNamedAsHostAndEachReasonIsListedOnce() {
        assertThat(matrices.violationsOf("""
                name: v
                base: {provider: verbs}
                dimensions: {msg_size: [64, 4096]}
                hosts: {loopback: [tcponly, rdma]}
                """)).extracting(Violation::message).containsExactly("host tcponly cannot run provider verbs: " + NO_HEADERS);
    }

    @Test
    void tcpPointsOnTheSameHostsAndHostsWithoutEngineFactsAreAccepted() {
        assertThat(matrices.expand("""
                name: t
                base: {provider: tcp, msg_size: 4096}
                hosts: {pairs: [[tcponly, nolib]]}
                """).runs()).singleElement();
        assertThat(matrices.expand("""
                name: v
                base: {provider: verbs, msg_size: 4096}
                hosts: {pairs: [[rdma, old]]}
                """).runs()).singleElement();
    }
}

package org.qplab.controller.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.controller.api.Violation;
import org.springframework.http.MediaType;

class MatrixExpanderTests {

    private final YamlMatrices matrices = YamlMatrices.withoutHosts();

    @Test
    void expandsCrossProductTimesRepeatsWithBaseInEveryRun() {
        Matrix matrix = matrices.expand("""
                name: sweep
                base: {iterations: 50, qps_per_thread: 4}
                dimensions:
                  msg_size: [64, 4K, 1MiB]
                  threads: [1, 2]
                repeats: 2
                """);

        assertThat(matrix.name()).isEqualTo("sweep");
        assertThat(matrix.runs()).hasSize(3 * 2 * 2);
        assertThat(matrix.runs()).extracting(r -> r.params().get("msg_size"))
                .containsOnly(64L, 4096L, 1_048_576L);
        assertThat(matrix.runs()).allSatisfy(r -> {
            assertThat(r.params()).containsEntry("provider", "tcp").containsEntry("iterations", 50L)
                    .containsEntry("qps_per_thread", 4L);
        });
        assertThat(matrix.runs()).filteredOn(r -> r.params().equals(Map.of("provider", "tcp", "op", "send", "mode", "bw",
                "iterations", 50L, "qps_per_thread", 4L, "msg_size", 4096L, "threads", 2L))).extracting(Matrix.RunPoint::repeat)
                .containsExactly(0, 1);
    }

    @Test
    void writesTheDefaultsOfTheGroupingParametersIntoEveryRun() {
        assertThat(matrices.expand("base: {msg_size: 64}").runs()).singleElement().extracting(Matrix.RunPoint::params)
                .isEqualTo(Map.of("provider", "tcp", "op", "send", "mode", "bw", "threads", 1L, "qps_per_thread", 1L,
                        "msg_size", 64L));
    }

    @Test
    void listsEveryViolationAtOnce() {
        List<Violation> violations = matrices.violationsOf("""
                name: bad
                colour: blue
                base: {thread: 2, iterations: 0}
                dimensions:
                  msg_size: [64, -1, 0, "lots"]
                  qps_per_thread: []
                  provider: [tcp, carrier-pigeon]
                repeats: 0
                """);

        assertThat(violations).extracting(Violation::field).containsExactlyInAnyOrder(
                "colour", "repeats", "base.thread", "base.iterations", "dimensions.msg_size[1]",
                "dimensions.msg_size[2]", "dimensions.msg_size[3]", "dimensions.qps_per_thread",
                "dimensions.provider[1]");
        assertThat(violations).filteredOn(v -> v.field().equals("base.thread")).first()
                .extracting(Violation::message).asString().contains("unknown parameter 'thread'").contains("threads");
        // the engine's words for its limits, at the index the matrix gave the value
        assertThat(violations).contains(new Violation("dimensions.msg_size[1]", "msg_size must be in 1..1073741824 (got -1)"),
                new Violation("dimensions.msg_size[2]", "msg_size must be in 1..1073741824 (got 0)"),
                new Violation("base.iterations", "iterations must be > 0 unless duration_ms is set"));
        assertThat(violations).filteredOn(v -> v.field().equals("dimensions.msg_size[3]")).first()
                .extracting(Violation::message).asString().contains("must be a size in bytes");
        assertThat(violations).filteredOn(v -> v.field().equals("dimensions.qps_per_thread")).first()
                .extracting(Violation::message).asString().contains("empty");
    }

    @Test
    void refusesTenMillionPointsWithoutExpandingThem() {
        List<Violation> violations = matrices.violationsOf("""
                dimensions:
                  msg_size: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  threads: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  qps_per_thread: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  tx_depth: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  iterations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  warmup_cycles: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
                  repeats_are_separate: [1]
                repeats: 10
                """);

        assertThat(violations).extracting(Violation::message)
                .anySatisfy(m -> assertThat(m).contains("10,000,000 runs").contains("limit is 10,000"));
        assertThat(violations).extracting(Violation::field).contains("dimensions.repeats_are_separate");
    }

    @Test
    void refusesSummaryOnlyRunsWhichTheEngineAllowsButAnExperimentCannotStore() {
        assertThat(matrices.violationsOf("base: {msg_size: 64, interval_ms: 0}")).containsExactly(new Violation("interval_ms",
                "interval_ms 0 (the summary only) is for qpbench: an experiment's runs stream intervals, every chart "
                        + "and check is made from them; use 10..60000 (default 100)"));
    }

    @Test
    void refusesAnIntervalOrATraceOutsideTheEnginesBoundsNamingThem() {
        assertThat(matrices.violationsOf("base: {msg_size: 64, interval_ms: 5, trace_first: 2000000, trace_every: 0}"))
                .containsExactlyInAnyOrder(
                        new Violation("base.interval_ms", "interval_ms must be 0 (the summary only) or in 10..60000 (got 5)"),
                        new Violation("base.trace_first", "trace_first must be in 0..1000000 (got 2000000)"),
                        new Violation("base.trace_every", "trace_every must be in 1..1099511627776 (got 0)"));
        assertThat(matrices.violationsOf("base: {msg_size: 64, trace_first: 300000}\ndimensions: {threads: [2, 4]}"))
                .containsExactly(new Violation("base.trace_first",
                        "trace_first 300000 x threads 4 = 1200000 trace records > 1000000 per run"));
        assertThat(matrices.expand("base: {msg_size: 64, interval_ms: 10, trace_first: 1000, trace_every: 100}").runs())
                .singleElement().extracting(Matrix.RunPoint::params)
                .satisfies(p -> assertThat(p).containsEntry("interval_ms", 10L).containsEntry("trace_first", 1000L)
                        .containsEntry("trace_every", 100L));
    }

    @Test
    void requiresMessageSize() {
        assertThat(matrices.violationsOf("base: {threads: 2}")).containsExactly(
                new Violation("base.msg_size", "msg_size is required (1..1073741824 bytes)"));
    }

    @Test
    void refusesParameterSetInBaseAndDimensions() {
        assertThat(matrices.violationsOf("base: {msg_size: 64}\ndimensions: {msg_size: [128]}"))
                .extracting(Violation::field).containsExactly("dimensions.msg_size");
    }

    @Test
    void refusesMoreConnectionsThanARunMayOpen() {
        assertThat(matrices.violationsOf("base: {msg_size: 64, qps_per_thread: 65536}\ndimensions: {threads: [1, 2]}"))
                .extracting(Violation::message).containsExactly(
                        "threads 2 x qps_per_thread 65536 = 131072 connections exceeds 65536 per tcp run");
    }

    @Test
    void reportsWhereYamlIsMalformed() {
        assertThatThrownBy(() -> matrices.expand("name: x\ndimensions: {msg_size: [64, 128\n"))
                .isInstanceOfSatisfying(InvalidMatrixException.class, e -> assertThat(e.violations())
                        .singleElement().extracting(Violation::message).asString()
                        .startsWith("malformed YAML at line"));
    }

    @Test
    void refusesOtherContentTypes() {
        assertThatThrownBy(() -> matrices.reader.read("msg_size=64".getBytes(), MediaType.TEXT_PLAIN))
                .isInstanceOfSatisfying(InvalidMatrixException.class, e -> assertThat(e.violations())
                        .containsExactly(new Violation("Content-Type",
                                "must be application/json or application/yaml, got text/plain")));
    }
    @Test
    void verbsRunsNameTheirTransportAndTakeTheVerbsKnobs() {
        Matrix matrix = matrices.expand("""
                base: {provider: verbs, msg_size: 4K, srq: shared, inline_size: 0, mtu: 1024, polling: event}
                dimensions: {threads: [1, 2, 4]}
                """);
        assertThat(matrix.runs()).hasSize(3).allSatisfy(r -> assertThat(r.params())
                .containsEntry("transport", "rc").containsEntry("srq", "shared").containsEntry("mtu", 1024L)
                .containsEntry("polling", "event"));
    }

    @Test
    void refusesCombinationsNoDeviceCanRunWithEveryReason() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: verbs, msg_size: 8K, signal_every: 256, tx_depth: 64}
                dimensions:
                  transport: [rc, uc, ud]
                  op: [send, write, read]
                """);
        assertThat(violations).containsExactlyInAnyOrder(
                new Violation("dimensions.op[2]", "op read: transport uc has no RDMA read (use rc or xrc)"),
                new Violation("dimensions.op[2]", "op read: transport ud has no RDMA read (use rc or xrc)"),
                new Violation("dimensions.op[1]", "op write: transport ud has no RDMA write (use rc, uc or xrc)"),
                new Violation("dimensions.transport[2]",
                        "transport ud: message 8192 B > 4096 B, the largest path MTU (a UD message is one packet)"),
                new Violation("base.signal_every",
                        "signal_every 256 > tx_depth 64 (the send queue would fill with unsignaled requests)"));
    }

    @Test
    void sharedQpsTakeOneSidedOpsOnly() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: verbs, msg_size: 8, qp_sharing: shared, cq_mode: per_thread}
                dimensions:
                  op: [send, read]
                """);
        assertThat(violations).extracting(Violation::message).containsExactlyInAnyOrder(
                "qp_sharing shared: only one-sided ops (write, read); a shared QP's receives could not be told apart by thread",
                "qp_sharing shared: cq_mode per_thread: a shared QP has one CQ for all threads (use per_qp or shared)");
    }

    @Test
    void rdmaCmConnectsRcOnly() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: verbs, msg_size: 4K, rdma_cm: true}
                dimensions:
                  transport: [rc, uc]
                """);
        assertThat(violations).containsExactly(new Violation("base.rdma_cm",
                "rdma_cm: transport uc is not connected through rdma_cm here (rc only, as on iWARP)"));
    }

    @Test
    void tcpRefusesVerbsKnobsAndOneSidedOps() {
        List<Violation> violations = matrices.violationsOf("""
                base: {msg_size: 64, transport: ud, srq: none}
                dimensions: {op: [send, write]}
                """);
        assertThat(violations).containsExactlyInAnyOrder(
                new Violation("base.transport", "transport applies to provider verbs only"),
                new Violation("dimensions.op[1]", "op \"write\" is not supported by provider tcp (only \"send\")"));
        assertThat(matrices.violationsOf("base: {provider: verbs, msg_size: 64, tcp_nodelay: false}"))
                .extracting(Violation::message).containsExactly("tcp_nodelay applies to provider tcp only");
        assertThat(matrices.violationsOf("base: {provider: verbs, msg_size: 64, mtu: 1000, device: 'rxe0;rm'}"))
                .extracting(Violation::field).containsExactlyInAnyOrder("base.mtu", "base.device");
    }
    @Test
    void hostsExpandToLoopbackPairsAndEveryPairOfAGroup() {
        Matrix group = matrices.expand("""
                hosts: {group: [a, b, c]}
                base: {msg_size: 64}
                repeats: 2
                """);
        assertThat(group.runs()).as("repeats in rounds").extracting(r -> r.client() + "->" + r.server() + "#" + r.repeat())
                .containsExactly("b->c#0", "a->b#0", "a->c#0", "b->c#1", "a->b#1", "a->c#1");
        assertThat(matrices.expand("hosts: {pairs: [[x, y], [y, x]]}\nbase: {msg_size: 64}").runs())
                .extracting(r -> r.client() + "->" + r.server()).containsExactly("x->y", "y->x");
        assertThat(matrices.expand("hosts: {loopback: [x, y]}\nbase: {msg_size: 64}").runs())
                .extracting(r -> r.client() + "->" + r.server()).containsExactly("x->null", "y->null");
        assertThat(matrices.expand("hosts: loopback\nbase: {msg_size: 64}").runs())
                .extracting(r -> r.client() + "->" + r.server()).containsExactly("null->null");
    }

    /** ClusterKit's schedule: n−1 rounds of n/2 pairs that share no host; every pair once; odd n: one host idles. */
    @Test
    void aGroupRunsInRoundsOfPairsThatShareNoHost() {
        for (int n = 2; n <= 9; n++) {
            List<String> group = java.util.stream.IntStream.range(0, n).mapToObj(i -> "h" + i).toList();
            List<MatrixHosts.Pair> pairs = MatrixHosts.rounds(group);
            int perRound = n / 2;
            int rounds = n % 2 == 0 ? n - 1 : n;
            assertThat(pairs).as("n=%d: every pair once", n).hasSize(n * (n - 1) / 2).doesNotHaveDuplicates();
            assertThat(pairs).allMatch(p -> group.indexOf(p.client()) < group.indexOf(p.server()));
            for (int r = 0; r < rounds; r++) {
                List<MatrixHosts.Pair> round = pairs.subList(r * perRound, (r + 1) * perRound);
                assertThat(round.stream().flatMap(p -> java.util.stream.Stream.of(p.client(), p.server())))
                        .as("n=%d round %d: %s", n, r, round).doesNotHaveDuplicates().hasSize(2 * perRound);
            }
        }
        assertThat(MatrixHosts.rounds(List.of("a", "b", "c", "d"))).extracting(p -> p.client() + "-" + p.server())
                .containsExactly("a-d", "b-c", "a-b", "c-d", "a-c", "b-d");
    }

    /** retests, bad_below and bad_above judge host pairs: refused without pairs, and out of range, each named. */
    @Test
    void pairRulesNeedPairsAndSaneValues() {
        assertThat(matrices.expand("hosts: {group: [a, b, c]}\nbase: {msg_size: 64}\nretests: 0\n"
                + "bad_below: 0.9\nbad_above: 3").runs()).hasSize(3);
        assertThat(matrices.violationsOf("hosts: loopback\nbase: {msg_size: 64}\nretests: 1"))
                .extracting(Violation::field, Violation::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("retests", "judges host pairs: it needs hosts "
                        + "all_pairs, {group: [...]} or {pairs: [...]}"));
        assertThat(matrices.violationsOf("hosts: {pairs: [[x, y]]}\nbase: {msg_size: 64}\nretests: 6\n"
                + "bad_below: 1.5\nbad_above: 0.5")).extracting(Violation::field, Violation::message)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("retests", "must be an integer between 0 and 5 (how many "
                                + "times a bad pair is tested again), got 6"),
                        org.assertj.core.groups.Tuple.tuple("bad_below", "must be a fraction of the best pair's "
                                + "bandwidth or rate, 0 < bad_below <= 1, got 1.5"),
                        org.assertj.core.groups.Tuple.tuple("bad_above", "must be a multiple of the best pair's time, "
                                + "bad_above >= 1, got 0.5"));
        assertThat(PairRules.of(Map.of("retests", 1, "bad_below", 0.5))).isEqualTo(new PairRules(1, 0.5, 2.1));
        assertThat(PairRules.of(Map.of("hosts", "all_pairs"))).isEqualTo(PairRules.DEFAULT);
        assertThat(PairRules.of(Map.of("hosts", Map.of("group", List.of("a", "b"))))).isEqualTo(PairRules.DEFAULT);
        assertThat(PairRules.of(Map.of("hosts", Map.of("pairs", List.of(List.of("a", "b")))))).as("chosen pairs")
                .isEqualTo(new PairRules(0, 0.93, 2.1));
    }

    /** search: knee expands to the search's first points, every repeat; what it cannot search is refused, named. */
    @Test
    void aKneeSearchStartsWithItsFirstPointsAndRefusesWhatItCannotSearch() {
        Matrix search = matrices.expand("base: {provider: tcp, msg_size: 64}\nsearch: {knee: threads, low: 1, high: 16}\nrepeats: 2");
        assertThat(search.runs()).extracting(r -> r.params().get("threads") + "#" + r.repeat())
                .containsExactly("1#0", "3#0", "6#0", "16#0", "1#1", "3#1", "6#1", "16#1");
        assertThat(matrices.expand("base: {provider: tcp, msg_size: 64}\nsearch: {}").runs()).as("{} is no search").hasSize(1);
        assertThat(matrices.expand("base: {provider: tcp, msg_size: 64}\nsearch: {knee: qps_per_thread, low: 2, high: 3}").runs())
                .extracting(r -> r.params().get("qps_per_thread")).containsExactly(2L, 3L);
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 64}\nsearch: {knee: threads, low: 1, high: 16, max_runs: 3}\n"
                + "repeats: 2")).extracting(Violation::field, Violation::message).containsExactly(
                org.assertj.core.groups.Tuple.tuple("search.max_runs", "must leave room for both ends' repeats: at "
                        + "least 2 x 2 = 4, got 3"));
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 64}\nsearch: {knee: transport, low: 1, high: 4, speed: 2}"))
                .extracting(Violation::field).containsExactlyInAnyOrder("search.speed", "search.knee");
        assertThat(matrices.violationsOf("base: {provider: tcp, msg_size: 64}\nhosts: {pairs: [[a, b], [b, a]]}\n"
                + "search: {knee: threads, low: 1, high: 4}")).extracting(Violation::field).containsExactly("hosts");
    }

    /** all_pairs: the agents connected at submit, as a group (sorted), in rounds; fewer than two is refused. */
    @Test
    void allPairsIsAGroupOfTheAgentsConnectedNow() {
        Map<String, Map<String, Object>> three = Map.of("c", Map.of(), "a", Map.of(), "b", Map.of());
        assertThat(YamlMatrices.asAController(three, Map.of()).expand("hosts: all_pairs\nbase: {msg_size: 64}").runs())
                .extracting(r -> r.client() + "->" + r.server()).containsExactly("b->c", "a->b", "a->c");
        assertThat(YamlMatrices.asAController(Map.of("a", Map.of()), Map.of())
                .violationsOf("hosts: all_pairs\nbase: {msg_size: 64}")).extracting(Violation::field, Violation::message)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("hosts", "all_pairs needs at least two connected "
                        + "agents; connected now: a (name the hosts with {group: [host, ...]} to queue runs for agents "
                        + "that connect later)"));
        assertThat(matrices.violationsOf("hosts: all_pairs\nbase: {msg_size: 64}")).extracting(Violation::message)
                .singleElement().asString().startsWith("all_pairs needs at least two connected agents; connected now: none");
    }

    @Test
    void refusesMalformedHostsWithTheField() {
        assertThat(matrices.violationsOf("hosts: {pairs: [[a, a], [b], [c, 'd e']]}\nbase: {msg_size: 64}"))
                .extracting(Violation::field).containsExactly("hosts.pairs[0]", "hosts.pairs[1]", "hosts.pairs[2][1]");
        assertThat(matrices.violationsOf("hosts: {group: [a]}\nbase: {msg_size: 64}"))
                .extracting(Violation::message).containsExactly("needs at least two hosts to make a pair");
        assertThat(matrices.violationsOf("hosts: everywhere\nbase: {msg_size: 64}"))
                .extracting(Violation::field).containsExactly("hosts");
    }

    @Test
    void zipsSetTheirParametersPositionByPositionAcrossTheOtherDimensions() {
        Matrix matrix = matrices.expand("""
                base: {provider: verbs, op: send}
                dimensions: {msg_size: [64, 1K]}
                zips:
                  variant:
                    srq: [none, per_thread, none]
                    inline_size: [0, 0, 128]
                repeats: 2
                """);

        assertThat(matrix.runs()).hasSize(2 * 3 * 2);
        assertThat(matrix.runs()).extracting(r -> r.params().get("msg_size") + "/" + r.params().get("srq") + "/"
                        + r.params().get("inline_size")).containsOnly("64/none/0", "64/per_thread/0", "64/none/128",
                "1024/none/0", "1024/per_thread/0", "1024/none/128");
    }

    @Test
    void refusesZipsWhoseListsDifferInLengthOrRepeatAParameter() {
        List<Violation> violations = matrices.violationsOf("""
                base: {provider: verbs, msg_size: 64, srq: none}
                zips:
                  a: {inline_size: [0, 128], signal_every: [1, 16, 64]}
                  b: {srq: [none, shared], bogus: [1]}
                """);

        assertThat(violations).extracting(Violation::field)
                .contains("zips.a.signal_every", "zips.b.srq", "zips.b.bogus");
        assertThat(violations).filteredOn(v -> v.field().equals("zips.a.signal_every")).singleElement()
                .extracting(Violation::message).asString().contains("has 3 values but inline_size has 2");
        assertThat(violations).filteredOn(v -> v.field().equals("zips.b.srq")).singleElement()
                .extracting(Violation::message).asString().contains("also set in base");
    }

    @Test
    void excludeLeavesOutMatchingPointsBeforeTheyAreChecked() {
        Matrix matrix = matrices.expand("""
                base: {provider: verbs}
                dimensions:
                  transport: [rc, uc, ud]
                  op: [send, write, read]
                  msg_size: [64, 4K, 64K]
                exclude:
                  - {transport: uc, op: read}
                  - {transport: ud, op: [write, read]}
                  - {transport: ud, msg_size: {gt: 4K}}
                """);

        // rc: 3 ops x 3 sizes; uc: send, write x 3; ud: send x 64, 4K
        assertThat(matrix.runs()).hasSize(9 + 6 + 2);
        assertThat(matrix.runs()).noneMatch(r -> r.params().get("transport").equals("ud")
                && ((Long) r.params().get("msg_size")) > 4096);
        assertThat(matrix.runs()).noneMatch(r -> r.params().get("transport").equals("uc") && r.params().get("op").equals("read"));
    }

    @Test
    void excludeConditionsCompareNumbersAndTheDefaultTransport() {
        Matrix matrix = matrices.expand("""
                base: {provider: verbs}
                dimensions: {msg_size: [64, 4K, 64K], threads: [1, 2, 4]}
                exclude:
                  - {msg_size: {ge: 4K}, threads: {ne: 1}}
                  - {transport: rc, msg_size: 64, threads: {lt: 2}}
                """);

        assertThat(matrix.runs()).extracting(r -> r.params().get("msg_size") + "x" + r.params().get("threads"))
                .containsExactlyInAnyOrder("64x2", "64x4", "4096x1", "65536x1");
    }

    @Test
    void refusesMalformedExcludesAndAnExcludeThatLeavesNothing() {
        assertThat(matrices.violationsOf("""
                base: {msg_size: 64}
                dimensions: {threads: [1, 2]}
                exclude:
                  - {thread: 1}
                  - {threads: {above: 1}}
                  - {provider: {gt: tcp}}
                  - {}
                """)).extracting(Violation::field)
                .containsExactly("exclude[0].thread", "exclude[1].threads", "exclude[2].provider", "exclude[3]");
        assertThat(matrices.violationsOf("""
                base: {msg_size: 64}
                dimensions: {threads: [1, 2]}
                exclude: [{threads: {ge: 1}}]
                """)).singleElement().satisfies(v -> {
            assertThat(v.field()).isEqualTo("exclude");
            assertThat(v.message()).contains("all 2 points");
        });
    }

    @Test
    void aSeededRandomOrderShufflesTheSameRunsTheSameWayEveryTime() {
        String matrix = """
                dimensions: {msg_size: [64, 128, 256, 512, 1K, 2K, 4K, 8K], threads: [1, 2]}
                repeats: 2
                order: {random: true, seed: 42}
                """;
        List<String> first = matrices.expand(matrix).runs().stream().map(r -> r.params() + "#" + r.repeat()).toList();
        List<String> again = matrices.expand(matrix).runs().stream().map(r -> r.params() + "#" + r.repeat()).toList();
        List<String> sequential = matrices.expand(matrix.replace("order: {random: true, seed: 42}", "")).runs().stream()
                .map(r -> r.params() + "#" + r.repeat()).toList();
        List<String> otherSeed = matrices.expand(matrix.replace("seed: 42", "seed: 43")).runs().stream()
                .map(r -> r.params() + "#" + r.repeat()).toList();

        assertThat(first).isEqualTo(again).containsExactlyInAnyOrderElementsOf(sequential).isNotEqualTo(sequential)
                .isNotEqualTo(otherSeed);
    }

    @Test
    void aRandomOrderWithoutSeedStoresTheSeedItChose() {
        Matrix matrix = matrices.expand("""
                dimensions: {msg_size: [64, 128, 256]}
                order: {random: true}
                """);

        assertThat(matrix.source().get("order")).isInstanceOfSatisfying(Map.class, order -> {
            assertThat(order.get("random")).isEqualTo(true);
            assertThat(order.get("seed")).isInstanceOf(Long.class);
        });
        assertThat(matrices.violationsOf("""
                base: {msg_size: 64}
                order: {random: yes please, seed: 1.5, shuffle: true}
                """)).extracting(Violation::field).containsExactlyInAnyOrder("order.random", "order.seed", "order.shuffle");
    }
}

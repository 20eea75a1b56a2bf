package org.qplab.engine.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.qplab.engine.SpecViolation;

class NvmeofSpecTests {

    private static Map<String, Object> spec(Object... keyValues) {
        Map<String, Object> m = new HashMap<>();
        m.put("provider", "nvmeof");
        for (int i = 0; i < keyValues.length; i += 2) {
            m.put((String) keyValues[i], keyValues[i + 1]);
        }
        return m;
    }

    private static List<String> fields(Map<String, Object> spec) {
        return NvmeofSpec.check(spec).stream().map(SpecViolation::field).toList();
    }

    private static String message(Map<String, Object> spec, String field) {
        return NvmeofSpec.check(spec).stream().filter(v -> v.field().equals(field)).map(SpecViolation::message)
                .findFirst().orElseThrow(() -> new AssertionError("no violation for " + field + " in "
                        + NvmeofSpec.check(spec)));
    }

    @Test
    void fillsTheContractsDefaults() {
        NvmeofSpec s = NvmeofSpec.of(spec("role", "client", "bind", "198.18.0.11", "port", 0L));

        assertThat(s).isEqualTo(new NvmeofSpec("rdma", "null_blk", null, 1L << 30, "randread", 50, 4096, 1, 1,
                "io_uring", 10_000L, null, true, 1000, ""));
        assertThat(s.timeBased()).isTrue();
    }

    @Test
    void aSizedRunHasNoRuntime() {
        NvmeofSpec s = NvmeofSpec.of(spec("size", 8L << 20, "bs", 8192L));

        assertThat(s.runtimeMs()).isNull();
        assertThat(s.sizeBytes()).isEqualTo(8L << 20);
        assertThat(s.timeBased()).isFalse();
    }

    @Test
    void acceptsIntegersAsJacksonReadsThem() {
        NvmeofSpec s = NvmeofSpec.of(spec("iodepth", 16, "bs", 8192, "threads", 1));

        assertThat(s.iodepth()).isEqualTo(16);
        assertThat(s.bs()).isEqualTo(8192);
    }

    @Test
    void refusesIodepthZeroNamingTheRange() {
        assertThat(fields(spec("iodepth", 0L))).containsExactly("iodepth");
        assertThat(message(spec("iodepth", 0L), "iodepth")).contains("1..65535").contains("got 0");
    }

    @Test
    void refusesABlockSizeThatIsNotAMultipleOf512() {
        assertThat(fields(spec("bs", 1000L))).containsExactly("bs");
        assertThat(message(spec("bs", 1000L), "bs")).contains("multiple of 512").contains("1000");
        assertThat(fields(spec("bs", 32L << 20))).containsExactly("bs");
        assertThat(message(spec("bs", 32L << 20), "bs")).contains("512..16777216");
    }

    @Test
    void refusesAnUnknownRwListingTheChoices() {
        assertThat(fields(spec("rw", "randtrim"))).containsExactly("rw");
        assertThat(message(spec("rw", "randtrim"), "rw"))
                .isEqualTo("must be one of read, write, randread, randwrite, randrw, got \"randtrim\"");
    }

    @Test
    void refusesRwmixreadWithoutRandrw() {
        assertThat(fields(spec("rw", "randread", "rwmixread", 70L))).containsExactly("rwmixread");
        assertThat(message(spec("rwmixread", 70L), "rwmixread")).contains("randrw").contains("got rw randread");
        assertThat(NvmeofSpec.check(spec("rw", "randrw", "rwmixread", 70L))).isEmpty();
        assertThat(fields(spec("rw", "randrw", "rwmixread", 101L))).containsExactly("rwmixread");
    }

    @Test
    void refusesRuntimeAndSizeTogetherOnRuntimeMs() {
        assertThat(fields(spec("runtime_ms", 2000L, "size", 1L << 20))).containsExactly("runtime_ms");
        assertThat(message(spec("runtime_ms", 2000L, "size", 1L << 20), "runtime_ms")).contains("exclusive");
    }

    @Test
    void requiresABackingPathForFileAndDevice() {
        assertThat(fields(spec("backing", "file"))).containsExactly("backing_path");
        assertThat(message(spec("backing", "device"), "backing_path")).contains("required with backing device");
        assertThat(NvmeofSpec.check(spec("backing", "file", "backing_path", "/srv/qplab.img"))).isEmpty();
    }

    @Test
    void refusesABackingPathWithNullBlk() {
        assertThat(fields(spec("backing_path", "/dev/sdb"))).containsExactly("backing_path");
        assertThat(message(spec("backing", "null_blk", "backing_path", "/dev/sdb"), "backing_path"))
                .contains("refused with backing null_blk");
    }

    @Test
    void refusesABackingPathTheHostDoesNotList() {
        NvmeofSpec s = NvmeofSpec.of(spec("backing", "device", "backing_path", "/dev/sdb"));

        assertThat(s.checkBackingPath("vm1", List.of("/dev/sdb"))).isNull();
        SpecViolation v = s.checkBackingPath("vm1", List.of("/srv/x.img"));
        assertThat(v.field()).isEqualTo("backing_path");
        assertThat(v.message()).contains("vm1").contains("/dev/sdb").contains("/srv/x.img");
    }

    @Test
    void checksTheNullBlkSize() {
        assertThat(fields(spec("backing_size", 1000L))).containsExactly("backing_size");
        assertThat(fields(spec("backing_size", (1L << 20) + 4096))).containsExactly("backing_size");
        assertThat(fields(spec("backing_size", 128L << 30))).containsExactly("backing_size");
        assertThat(fields(spec("backing", "file", "backing_path", "/srv/x.img", "backing_size", 1L << 30)))
                .containsExactly("backing_size");
        assertThat(fields(spec("backing_size", 2L << 20, "size", 4L << 20))).containsExactly("size");
    }

    @Test
    void refusesEngineKeysAtOtherThanTheirDefaultNamingEach() {
        Map<String, Object> s = spec("threads", 4L, "msg_size", 4096L, "op", "write", "qps_per_thread", 1L,
                "tx_depth", 128L, "rx_depth", 512L, "post_list", 8L, "verify", false);

        assertThat(fields(s)).containsExactlyInAnyOrder("threads", "msg_size", "op", "post_list");
        assertThat(message(s, "threads")).startsWith("threads is an engine (tcp/verbs) key; nvmeof runs take rw, bs,");
    }

    @Test
    void refusesUnknownKeysAndAnotherProvider() {
        assertThat(fields(spec("blocksize", 4096L))).containsExactly("blocksize");
        Map<String, Object> verbs = spec();
        verbs.put("provider", "verbs");
        assertThat(fields(verbs)).containsExactly("provider");
    }

    @Test
    void refusesWrongTypesAndRanges() {
        assertThat(fields(spec("direct", "yes", "numjobs", 65L, "ioengine", "psync", "transport", "rc",
                "interval_ms", 50L, "runtime_ms", 10L, "iodepth", "16")))
                .containsExactlyInAnyOrder("direct", "numjobs", "ioengine", "transport", "interval_ms", "runtime_ms",
                        "iodepth");
    }

    @Test
    void ofListsEveryViolation() {
        assertThatThrownBy(() -> NvmeofSpec.of(spec("iodepth", 0L, "bs", 1000L)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("iodepth: must be 1..65535")
                .hasMessageContaining("bs: must be a multiple of 512");
    }

    @Test
    void buildsFiosCommandLineForATimedRun() {
        NvmeofSpec s = NvmeofSpec.of(spec("rw", "randrw", "rwmixread", 70L, "bs", 8192L, "iodepth", 4L,
                "numjobs", 2L, "ioengine", "libaio", "runtime_ms", 1500L, "interval_ms", 500L, "transport", "tcp"));

        assertThat(s.fioArguments("/dev/nvme0n1", "qplab-agent-1-run-7")).containsExactly(
                "--name=qplab-agent-1-run-7", "--filename=/dev/nvme0n1", "--rw=randrw", "--rwmixread=70", "--bs=8192",
                "--ioengine=libaio", "--iodepth=4", "--numjobs=2", "--direct=1", "--group_reporting",
                "--output-format=json+", "--status-interval=500ms", "--percentile_list=50:99:99.9", "--time_based",
                "--runtime=1500ms");
    }

    @Test
    void buildsFiosCommandLineForASizedRun() {
        NvmeofSpec s = NvmeofSpec.of(spec("size", 8L << 20, "direct", false));

        assertThat(s.fioArguments("/dev/qplab-a-run-3", "qplab-a-run-3")).containsExactly(
                "--name=qplab-a-run-3", "--filename=/dev/qplab-a-run-3", "--rw=randread", "--bs=4096",
                "--ioengine=io_uring", "--iodepth=1", "--numjobs=1", "--direct=0", "--group_reporting",
                "--output-format=json+", "--status-interval=1000ms", "--percentile_list=50:99:99.9",
                "--size=8388608");
    }
}

package org.qplab.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.testkit.HiddenRdmaHeaders;
import org.qplab.testkit.Ran;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The engine built on a machine without rdma-core's headers: the compiler's include path is rebuilt from
 * symlinks to its own default directories minus infiniband/ and rdma/ ({@code -nostdinc -isystem ...}, no
 * privileges needed: src/test/c/hide-rdma-headers.sh, through the testkit's HiddenRdmaHeaders), and the real
 * Makefile builds the library and the CLI with it. The build warns and succeeds; tcp runs; the verbs provider,
 * device listing and engine info (what the agent's host facts carry) refuse verbs naming the packages to install.
 */
class TcpOnlyEngineBuildIntegrationTests {

    static final String REASON = "this engine was built without rdma-core's headers: the verbs provider needs "
            + "libibverbs-dev and librdmacm-dev (dnf: rdma-core-devel) at build time; install them and rebuild";
    private static final String CC = "cc";

    @TempDir
    static Path dir;
    private static Path out;
    private static String buildLog;
    private final ObjectMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void buildWithTheHeadersHidden() throws Exception {
        try (HiddenRdmaHeaders hidden = HiddenRdmaHeaders.of(Path.of(""), CC)) {
            List<String> preprocess = new ArrayList<>(List.of(CC, "-E", "-x", "c", "-"));
            preprocess.addAll(hidden.flags());
            assertThat(Ran.run(preprocess, "#include <infiniband/verbs.h>\n").exit())
                    .as("the hiding include path still finds infiniband/verbs.h").isNotZero();
            assertThat(Ran.run(preprocess, "#include <rdma/rdma_cma.h>\n").exit())
                    .as("the hiding include path still finds rdma/rdma_cma.h").isNotZero();
            assertThat(Ran.run(preprocess, "#include <stdio.h>\n#include <math.h>\n#include <limits.h>\n").exit())
                    .as("the hiding include path lost the C library's headers").isZero();
            out = dir.resolve("out");
            Ran make = hidden.make(out, "all");
            buildLog = make.output();
            assertThat(make.exit()).as("make with the headers hidden:\n%s", buildLog).isZero();
        }
    }

    @Test
    void theBuildWarnsOnceAndBuildsATcpOnlyEngine() throws IOException {
        assertThat(buildLog.lines().filter(l -> l.contains("warning: rdma-core's headers"))).singleElement()
                .asString().contains("building a tcp-only engine").contains("libibverbs-dev and librdmacm-dev");
        assertThat(Files.readString(out.resolve("engine-flavor")).strip()).isEqualTo("tcp-only");
        assertThat(out.resolve("libqpbench.so")).isRegularFile();
        assertThat(Files.readString(out.resolve("libqpbench.glibc"))).startsWith("needs=2.");
    }

    @Test
    @SuppressWarnings("unchecked")
    void aTcpLoopbackRunsAllItsCycles() throws Exception {
        Path summary = dir.resolve("tcp.json");
        Ran tcp = Ran.run(List.of(out.resolve("qpbench").toString(), "-n", "200", "-s", "64", "--json=" + summary), "");
        assertThat(tcp.exit()).as(tcp.output()).isZero();
        List<?> sizes = json.readValue(summary.toFile(), List.class);
        assertThat(sizes).singleElement().satisfies(s -> assertThat((Map<String, Object>) s)
                .containsEntry("provider", "tcp").containsEntry("cycles", 200).containsEntry("errors", 0));
    }

    @Test
    void theVerbsProviderIsRefusedNamingThePackages() throws Exception {
        Ran verbs = Ran.run(List.of(out.resolve("qpbench").toString(), "--provider=verbs", "-n", "10"), "");
        assertThat(verbs.exit()).isNotZero();
        assertThat(verbs.output()).contains("provider verbs: " + REASON);
        Ran devices = Ran.run(List.of(out.resolve("qpbench").toString(), "--devices"), "");
        assertThat(json.readValue(devices.output().substring(devices.output().indexOf('{')), Map.class))
                .containsEntry("devices", List.of()).containsEntry("unavailable", REASON);
    }

    /** What HostFacts puts under "engine" (Engine.info() read from this library) and so what GET /api/agents shows. */
    @Test
    @SuppressWarnings("unchecked")
    void theEngineInfoTheAgentReportsOffersTcpOnlyWithTheReason() throws Exception {
        QpbLibrary library = LibraryLoader.create(QpbLibrary.class).failImmediately()
                .load(out.resolve("libqpbench.so").toString());
        byte[] buf = new byte[4096];
        assertThat(library.qpb_engine_info(buf, buf.length)).isZero();
        Map<String, Object> info = json.readValue(new String(buf, 0, indexOfNul(buf), StandardCharsets.UTF_8), Map.class);
        assertThat(info).containsEntry("providers", List.of("tcp")).containsEntry("verbs_unavailable", REASON);
    }

    private static int indexOfNul(byte[] buf) {
        for (int i = 0; i < buf.length; i++) {
            if (buf[i] == 0) {
                return i;
            }
        }
        return buf.length;
    }
}

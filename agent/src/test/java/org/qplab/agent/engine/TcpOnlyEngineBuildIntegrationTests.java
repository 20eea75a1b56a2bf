package org.qplab.agent.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import jnr.ffi.LibraryLoader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * The engine built on a machine without rdma-core's headers: the compiler's include path is rebuilt from
 * symlinks to its own default directories minus infiniband/ and rdma/ ({@code -nostdinc -isystem ...}, no
 * privileges needed: src/test/c/hide-rdma-headers.sh), and the real Makefile builds the library and the CLI with it. The build warns and
 * succeeds; tcp runs; the verbs provider, device listing and engine info (what the agent's host facts carry)
 * refuse verbs naming the packages to install.
 */
class TcpOnlyEngineBuildIntegrationTests {

    static final String REASON = "this engine was built without rdma-core's headers: the verbs provider needs "
            + "libibverbs-dev and librdmacm-dev (dnf: rdma-core-devel) at build time; install them and rebuild";
    private static final String CC = "cc";

    @TempDir
    static Path dir;
    /** The symlink farm: not under @TempDir, whose cleanup warns about every link it deletes. */
    private static Path farm;
    private static Path out;
    private static String buildLog;
    private final ObjectMapper json = JsonMapper.builder().build();

    @BeforeAll
    static void buildWithTheHeadersHidden() throws Exception {
        farm = Files.createTempDirectory("qpb-include-");
        List<String> hide = hidingFlags(farm);
        List<String> preprocess = new ArrayList<>(List.of(CC, "-E", "-x", "c", "-"));
        preprocess.addAll(hide);
        assertThat(run(preprocess, "#include <infiniband/verbs.h>\n").exit)
                .as("the hiding include path still finds infiniband/verbs.h").isNotZero();
        assertThat(run(preprocess, "#include <rdma/rdma_cma.h>\n").exit)
                .as("the hiding include path still finds rdma/rdma_cma.h").isNotZero();
        assertThat(run(preprocess, "#include <stdio.h>\n#include <math.h>\n#include <limits.h>\n").exit)
                .as("the hiding include path lost the C library's headers").isZero();
        out = dir.resolve("out");
        Ran make = run(List.of("make", "-j2", "-C", Path.of("src/main/c").toAbsolutePath().toString(), "OUT=" + out,
                "CC=" + CC, "CPPFLAGS=" + String.join(" ", hide), "all"), "");
        buildLog = make.output;
        assertThat(make.exit).as("make with the headers hidden:\n%s", buildLog).isZero();
    }

    @AfterAll
    static void deleteTheFarm() throws IOException {
        if (farm != null) {
            try (Stream<Path> paths = Files.walk(farm)) { // does not follow the links
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
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
        Ran tcp = run(List.of(out.resolve("qpbench").toString(), "-n", "200", "-s", "64", "--json=" + summary), "");
        assertThat(tcp.exit).as(tcp.output).isZero();
        List<?> sizes = json.readValue(summary.toFile(), List.class);
        assertThat(sizes).singleElement().satisfies(s -> assertThat((Map<String, Object>) s)
                .containsEntry("provider", "tcp").containsEntry("cycles", 200).containsEntry("errors", 0));
    }

    @Test
    void theVerbsProviderIsRefusedNamingThePackages() throws Exception {
        Ran verbs = run(List.of(out.resolve("qpbench").toString(), "--provider=verbs", "-n", "10"), "");
        assertThat(verbs.exit).isNotZero();
        assertThat(verbs.output).contains("provider verbs: " + REASON);
        Ran devices = run(List.of(out.resolve("qpbench").toString(), "--devices"), "");
        assertThat(json.readValue(devices.output.substring(devices.output.indexOf('{')), Map.class))
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

    /** The flags of an include path without rdma-core's headers (src/test/c/hide-rdma-headers.sh, a farm in farm). */
    static List<String> hidingFlags(Path farm) throws Exception {
        Ran hide = run(List.of("sh", Path.of("src/test/c/hide-rdma-headers.sh").toAbsolutePath().toString(),
                farm.toString(), CC), "");
        assertThat(hide.exit).as(hide.output).isZero();
        return List.of(hide.output.strip().split(" "));
    }

    private record Ran(int exit, String output) {
    }

    /** Runs a command to its end (at most 2 minutes: a build of ~15 files with -j2 takes seconds). */
    private static Ran run(List<String> command, String stdin) throws Exception {
        Path log = Files.createTempFile(dir, "run", ".log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(command + " did not finish within 2 minutes:\n" + Files.readString(log));
        }
        return new Ran(p.exitValue(), Files.readString(log));
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

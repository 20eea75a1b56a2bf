package org.qplab.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ./qplab on a machine that lacks something: it says every missing item and the line that installs them, and stops
 * before it builds or starts anything. The machines are made with PATH (symlinks to this machine's tools but one)
 * and CC (a compiler that cannot see some headers).
 */
class QplabScriptIntegrationTests {

    private static final Path QPLAB = Path.of("..", "qplab").toAbsolutePath().normalize();
    private static final String APT = "sudo apt-get install -y openjdk-17-jdk-headless gcc libc6-dev make curl "
            + "libibverbs-dev librdmacm-dev";
    private static final String DNF = "sudo dnf install -y java-17-openjdk-devel gcc make curl rdma-core-devel";
    /** cc, gcc-12, x86_64-linux-gnu-gcc, c99-gcc, clang-16 ...: every name make or ./qplab could take for a compiler. */
    private static final Pattern COMPILER = Pattern.compile("(.+-)?(cc|gcc|c89|c99|clang|tcc)(-[0-9.]+)?");

    @TempDir
    Path dir;

    record Result(int exit, String out, String err) {}

    @Test
    void withoutACompilerItNamesTheCompilerAndTheInstallLinesAndBuildsNothing() throws Exception {
        Path bin = toolsExcept(name -> COMPILER.matcher(name).matches());

        Result result = qplab(Map.of("PATH", bin.toString()));

        assertThat(result.exit()).as(result.err()).isEqualTo(1);
        assertThat(missing(result)).containsExactly("a C compiler (cc or gcc, or set CC)");
        assertThat(result.err()).contains("Debian/Ubuntu: " + APT + "\n", "Fedora/RHEL:   " + DNF + "\n");
        assertThat(result.out()).as("nothing built or started").doesNotContain("building", "starting");
        assertThat(dir.resolve("state")).as("no log made").doesNotExist();
    }

    @Test
    void withJava11ItSaysWhatJavaVersionReportedAndWhichJavaItIs() throws Exception {
        Path fake = Files.createDirectories(dir.resolve("java11"));
        Path java = fake.resolve("java");
        Files.writeString(java, """
                #!/bin/sh
                echo 'openjdk version "11.0.22" 2024-01-16' >&2
                echo 'OpenJDK Runtime Environment (build 11.0.22+7-post-Debian-1deb11u1)' >&2
                """);
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));

        Result result = qplab(Map.of("PATH", fake + ":" + System.getenv("PATH")));

        assertThat(result.exit()).as(result.err()).isEqualTo(1);
        assertThat(missing(result)).containsExactly("java 17 or newer (`java -version` says 11.0.22; " + java + ")");
        assertThat(result.err()).contains("Debian/Ubuntu: " + APT + "\n", "Fedora/RHEL:   " + DNF + "\n");
    }

    @Test
    void withoutRdmaCoreHeadersItOnlyWarnsThatTheVerbsProviderWillNotBeBuiltAndListsWhatElseIsMissing() throws Exception {
        Path cc = compilerHiding("infiniband", "rdma");
        Path bin = toolsExcept("make"::equals);

        Result result = qplab(Map.of("PATH", bin.toString(), "CC", cc.toString()));

        assertThat(result.exit()).as(result.err()).isEqualTo(1);
        assertThat(result.err()).startsWith("qplab: WARNING: the verbs provider will not be built: install libibverbs-dev "
                        + "librdmacm-dev (dnf: rdma-core-devel)\n"
                        + "qplab: cannot build and run qplab here; missing:\n"
                        + "  - make\n"
                        + "qplab: install what is missing");
        assertThat(missing(result)).containsExactly("make");
    }

    @Test
    void anHttpPortInUseIsNamedWithQplabPortBeforeAnythingIsBuilt() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            Result result = qplab(Map.of("QPLAB_PORT", String.valueOf(port)));

            assertThat(result.exit()).as(result.err()).isEqualTo(2);
            assertThat(result.err()).endsWith("qplab: port " + port + " is in use (something listens on 127.0.0.1:" + port
                    + "): stop it, or set QPLAB_PORT to a free port\n");
            assertThat(result.out()).doesNotContain("building");
        }
    }

    /** The items under "missing:", in the order ./qplab lists them. */
    private static List<String> missing(Result result) {
        assertThat(result.err()).contains("qplab: cannot build and run qplab here; missing:\n");
        return result.err().lines().dropWhile(l -> !l.endsWith("missing:")).skip(1)
                .takeWhile(l -> l.startsWith("  - ")).map(l -> l.substring(4)).toList();
    }

    /** ./qplab --exit with HOME and its state in dir, and env on top of this JVM's environment. */
    private Result qplab(Map<String, String> env) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("bash", QPLAB.toString(), "--exit");
        Map<String, String> environment = builder.environment();
        environment.remove("CC");
        environment.put("HOME", dir.toString());
        environment.put("XDG_STATE_HOME", dir.resolve("state").toString());
        environment.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
        environment.putAll(env);
        Process p = builder.start();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("./qplab did not stop within 60 s: it went on past its checks\n" + err.join());
        }
        return new Result(p.exitValue(), out.join(), err.join());
    }

    /** A directory of symlinks to every tool on this JVM's PATH (the first of each name) but those left out. */
    private Path toolsExcept(Predicate<String> leftOut) throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String entry : System.getenv("PATH").split(":")) {
            Path pathDir = Path.of(entry);
            if (!Files.isDirectory(pathDir)) {
                continue;
            }
            try (Stream<Path> tools = Files.list(pathDir)) {
                for (Path tool : tools.toList()) {
                    String name = tool.getFileName().toString();
                    Path link = bin.resolve(name);
                    if (!leftOut.test(name) && Files.isExecutable(tool) && !Files.exists(link, LinkOption.NOFOLLOW_LINKS)) {
                        Files.createSymbolicLink(link, tool);
                    }
                }
            }
        }
        assertThat(bin.resolve("bash")).as("bash is on PATH").exists();
        return bin;
    }

    /**
     * A compiler (a script for CC) that searches gcc's own include directories, except that /usr/include is a copy
     * made of symlinks that lacks hidden: as on a machine without those packages.
     */
    private Path compilerHiding(String... hidden) throws IOException, InterruptedException {
        Path include = Files.createDirectories(dir.resolve("include"));
        try (Stream<Path> headers = Files.list(Path.of("/usr/include"))) {
            for (Path header : headers.toList()) {
                if (!List.of(hidden).contains(header.getFileName().toString())) {
                    Files.createSymbolicLink(include.resolve(header.getFileName()), header);
                }
            }
        }
        Process gcc = new ProcessBuilder("gcc", "-xc", "-E", "-v", "-").redirectInput(new File("/dev/null"))
                .redirectErrorStream(true).start();
        String verbose = read(gcc.getInputStream());
        assertThat(gcc.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<String> searched = new ArrayList<>();
        boolean inList = false;
        for (String line : verbose.lines().toList()) {
            if (line.startsWith("#include <...> search starts here:")) {
                inList = true;
            } else if (line.startsWith("End of search list.")) {
                inList = false;
            } else if (inList) {
                searched.add(line.strip().equals("/usr/include") ? include.toString() : line.strip());
            }
        }
        assertThat(searched).as("gcc's include directories:\n%s", verbose).contains(include.toString());
        StringBuilder script = new StringBuilder("#!/bin/sh\nexec gcc -nostdinc");
        searched.forEach(d -> script.append(" -isystem ").append(d));
        script.append(" \"$@\"\n");
        Path cc = dir.resolve("hiding-cc");
        Files.writeString(cc, script);
        Files.setPosixFilePermissions(cc, PosixFilePermissions.fromString("rwxr-xr-x"));
        return cc;
    }

    private static String read(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

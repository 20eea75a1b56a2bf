package org.qplab.controller.deploy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;

/**
 * The oldest glibc the agent's native engine loads on: the newest GLIBC_x.y symbol version libqpbench.so needs, which
 * the engine's build records beside it (libqpbench.glibc, from {@code objdump -T}) and the agent jar carries. A deploy
 * asks the host for its glibc before it copies anything and refuses an older one: the agent would start and then fail
 * to load its engine ("version `GLIBC_2.34' not found").
 *
 * @param needs    the version the library needs, e.g. "2.34"
 * @param builtWith the build machine's glibc, e.g. "glibc 2.36"
 * @param builtOn  the build machine's OS, e.g. "Debian GNU/Linux 12 (bookworm)"
 */
record GlibcFloor(String needs, String builtWith, String builtOn) {

    /** Where the agent jar carries the record (agent/pom.xml packages it next to the library). */
    static final String ENTRY = "native/linux-x86_64/libqpbench.glibc";
    /** The host's glibc: getconf's answer ("glibc 2.28"), else ldd's first line ("ldd (GNU libc) 2.28"). */
    static final String PROBE = "getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>&1 | head -n 1";
    private static final Pattern VERSION = Pattern.compile("(\\d+)\\.(\\d+)(?:\\.\\d+)?\\s*$");

    /** The record inside an agent jar; empty when the jar has none (an agent built before it was recorded). */
    static Optional<GlibcFloor> of(byte[] agentJar) {
        try (ZipInputStream zip = new ZipInputStream(new ByteArrayInputStream(agentJar))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                if (e.getName().equals(ENTRY)) {
                    return Optional.of(parse(new String(zip.readAllBytes(), StandardCharsets.UTF_8)));
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new DeployException("could not read " + ENTRY + " in the agent jar: " + e.getMessage(), e);
        }
    }

    /** needs=2.34, built_with=..., built_on=... lines, as the engine's Makefile writes them. */
    static GlibcFloor parse(String record) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(record));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        String needs = p.getProperty("needs", "").strip();
        if (version(needs) == null) {
            throw new DeployException("the agent jar's " + ENTRY + " has no needs=x.y line (" + record.strip()
                    + "): rebuild qplab with ./mvnw package");
        }
        return new GlibcFloor(needs, p.getProperty("built_with", "?").strip(), p.getProperty("built_on", "?").strip());
    }

    /**
     * {major, minor} of a glibc version at the end of a line ("glibc 2.28", "ldd (Ubuntu GLIBC 2.31-0ubuntu9.16)
     * 2.31", "2.34"), else null (musl's ldd, no answer).
     */
    static int[] version(String answer) {
        String line = answer == null ? "" : answer.strip().lines().findFirst().orElse("");
        Matcher m = VERSION.matcher(line);
        return m.find() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))} : null;
    }

    static int compare(int[] a, int[] b) {
        return a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]);
    }

    /**
     * Asks the host (remote: runs a command there, returns its standard output) for its glibc. Returns what to
     * report ("glibc 2.36, the engine needs >= 2.34"); throws DeployException naming both versions when the host's is
     * older or unknown.
     */
    String check(String host, Function<String, String> remote) {
        String answer = remote.apply(PROBE);
        int[] has = version(answer);
        String built = "built on " + builtOn + " with " + builtWith;
        if (has == null) {
            throw new DeployException("host " + host + " did not report a GNU libc version (`" + PROBE + "` said: '"
                    + (answer == null ? "" : answer.strip()) + "'); this agent's engine needs glibc >= " + needs + " ("
                    + built + "): deploy to a glibc-based Linux host");
        }
        String hostVersion = has[0] + "." + has[1];
        if (compare(has, version(needs)) < 0) {
            throw new DeployException("host " + host + " has glibc " + hostVersion + "; this agent's engine needs glibc >= "
                    + needs + " (" + built + "): build qplab on a machine with glibc <= " + hostVersion
                    + " or upgrade the host");
        }
        return "glibc " + hostVersion + ", the engine needs >= " + needs;
    }
}

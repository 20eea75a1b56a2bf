package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;

/**
 * The deploy's glibc check: the host's answer parsed (getconf, ldd of glibc and of distributions, musl), compared by
 * number (2.9 < 2.28 < 2.34), refused with both versions and what to do. (That the bundled agent jar's record is
 * what objdump reads from its library: GlibcFloorBundleIntegrationTests, once the jar is bundled at package.)
 */
class GlibcFloorTests {

    private static final GlibcFloor FLOOR = GlibcFloor.parse(
            "needs=2.34\nbuilt_with=glibc 2.36\nbuilt_on=Debian GNU/Linux 12 (bookworm)\n");

    @Test
    void readsTheVersionFromGetconfAndFromLddOfEachDistribution() {
        assertThat(GlibcFloor.version("glibc 2.28\n")).containsExactly(2, 28);
        assertThat(GlibcFloor.version("ldd (GNU libc) 2.17")).containsExactly(2, 17);
        assertThat(GlibcFloor.version("ldd (Ubuntu GLIBC 2.31-0ubuntu9.16) 2.31")).containsExactly(2, 31);
        assertThat(GlibcFloor.version("ldd (Debian GLIBC 2.36-9+deb12u14) 2.36\nCopyright (C) 2022")).containsExactly(2, 36);
        assertThat(GlibcFloor.version("2.2.5")).containsExactly(2, 2);
        assertThat(GlibcFloor.version("musl libc (x86_64)")).isNull();
        assertThat(GlibcFloor.version("")).isNull();
    }

    @Test
    void comparesByNumberNotByText() {
        assertThat(GlibcFloor.compare(new int[] {2, 9}, new int[] {2, 28})).isNegative();
        assertThat(GlibcFloor.compare(new int[] {2, 28}, new int[] {2, 34})).isNegative();
        assertThat(GlibcFloor.compare(new int[] {2, 34}, new int[] {2, 34})).isZero();
        assertThat(GlibcFloor.compare(new int[] {3, 0}, new int[] {2, 34})).isPositive();
    }

    @Test
    void anOlderHostIsRefusedWithBothVersionsAndWhatToDo() {
        List<String> asked = new ArrayList<>();
        assertThatThrownBy(() -> FLOOR.check("rhel8", command -> {
            asked.add(command);
            return "glibc 2.28\n";
        })).isInstanceOf(DeployException.class).hasMessage("host rhel8 has glibc 2.28; this agent's engine needs glibc "
                + ">= 2.34 (built on Debian GNU/Linux 12 (bookworm) with glibc 2.36): build qplab on a machine with "
                + "glibc <= 2.28 or upgrade the host");
        assertThat(asked).containsExactly("getconf GNU_LIBC_VERSION 2>/dev/null || ldd --version 2>&1 | head -n 1");
    }

    @Test
    void anEqualOrNewerHostPassesAndIsReported() {
        assertThat(FLOOR.check("bookworm", command -> "glibc 2.36\n")).isEqualTo("glibc 2.36, the engine needs >= 2.34");
        assertThat(FLOOR.check("rhel9", command -> "ldd (GNU libc) 2.34\n")).isEqualTo("glibc 2.34, the engine needs >= 2.34");
    }

    @Test
    void aHostWithoutGlibcIsRefusedQuotingItsAnswer() {
        assertThatThrownBy(() -> FLOOR.check("alpine", command -> "musl libc (x86_64)\n"))
                .isInstanceOf(DeployException.class).hasMessageContaining("host alpine did not report a GNU libc version")
                .hasMessageContaining("said: 'musl libc (x86_64)'").hasMessageContaining("needs glibc >= 2.34");
    }

    @Test
    void aJarWithoutTheRecordIsNotCheckedAndABrokenRecordIsNamed() throws IOException {
        assertThat(GlibcFloor.of(jar("META-INF/MANIFEST.MF", "Manifest-Version: 1.0\n"))).isEmpty();
        assertThat(GlibcFloor.of(jar(GlibcFloor.ENTRY, "needs=2.17\nbuilt_with=glibc 2.17\nbuilt_on=CentOS 7\n")))
                .contains(new GlibcFloor("2.17", "glibc 2.17", "CentOS 7"));
        assertThatThrownBy(() -> GlibcFloor.of(jar(GlibcFloor.ENTRY, "needs=\n")))
                .hasMessageContaining("has no needs=x.y line");
    }

    private static byte[] jar(String entry, String content) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            zip.putNextEntry(new ZipEntry(entry));
            zip.write(content.getBytes(StandardCharsets.UTF_8));
            zip.closeEntry();
        }
        return bytes.toByteArray();
    }
}

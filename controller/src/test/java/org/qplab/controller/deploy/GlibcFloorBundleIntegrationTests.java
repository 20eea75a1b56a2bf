package org.qplab.controller.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.io.ClassPathResource;

/**
 * The glibc floor the controller's bundled agent jar records is the newest glibc version objdump finds in the library
 * inside that jar. An integration test: the agent jar is bundled into the controller's classes at prepare-package.
 */
class GlibcFloorBundleIntegrationTests {

    /** The jar the controller deploys: its record is what objdump -T says of the libqpbench.so beside it. */
    @Test
    void theBundledAgentJarsFloorIsTheNewestGlibcVersionObjdumpFindsInItsLibrary(@TempDir Path dir) throws Exception {
        ClassPathResource bundled = new ClassPathResource(DeployService.JAR_RESOURCE);
        assertThat(bundled.exists()).as("the controller is built with the agent jar (%s)", DeployService.JAR_RESOURCE).isTrue();
        byte[] jar;
        try (InputStream in = bundled.getInputStream()) {
            jar = in.readAllBytes();
        }
        Path library = dir.resolve("libqpbench.so");
        try (ZipInputStream zip = new ZipInputStream(new java.io.ByteArrayInputStream(jar))) {
            for (ZipEntry e = zip.getNextEntry(); e != null; e = zip.getNextEntry()) {
                if (e.getName().equals("native/linux-x86_64/libqpbench.so")) {
                    Files.write(library, zip.readAllBytes());
                }
            }
        }
        assertThat(library).as("the agent jar carries its engine").isRegularFile();
        Process objdump;
        try {
            objdump = new ProcessBuilder("objdump", "-T", library.toString()).redirectErrorStream(true).start();
        } catch (IOException e) {
            assumeTrue(false, "objdump (binutils) is not installed: " + e.getMessage());
            return;
        }
        String symbols = new String(objdump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(objdump.waitFor(30, TimeUnit.SECONDS) && objdump.exitValue() == 0).as(symbols).isTrue();
        int[] newest = null;
        Matcher m = Pattern.compile("GLIBC_(\\d+)\\.(\\d+)(?:\\.\\d+)?\\b").matcher(symbols);
        int versions = 0;
        while (m.find()) {
            int[] v = {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2))};
            versions++;
            if (newest == null || GlibcFloor.compare(v, newest) > 0) {
                newest = v;
            }
        }
        assertThat(versions).as("objdump -T lists the library's glibc symbols").isGreaterThan(10);
        assertThat(GlibcFloor.of(jar)).map(GlibcFloor::needs).contains(newest[0] + "." + newest[1]);
    }
}

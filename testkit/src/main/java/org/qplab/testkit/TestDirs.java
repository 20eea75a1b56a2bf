package org.qplab.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Scratch directories of tests: under target/tmp (so `clean` removes what a killed test left), deleted after use. */
public final class TestDirs {

    private static final Path ROOT = Path.of("target", "tmp").toAbsolutePath();

    private TestDirs() {
    }

    /** A new, empty directory whose name starts with prefix. */
    public static Path fresh(String prefix) {
        try {
            return Files.createTempDirectory(Files.createDirectories(ROOT), prefix);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Deletes a directory and everything in it; nothing when it is not there. */
    public static void delete(Path root) throws IOException {
        if (root == null || !Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}

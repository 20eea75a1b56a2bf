package org.qplab.controller.database;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/** Where tests put their embedded PostgreSQL: a new directory the server's user can reach. */
public final class TestDatabase {

    private TestDatabase() {
    }

    public static Path freshDataDir() {
        try {
            // /tmp, not a 0700 temp dir: when tests run as root the server runs as nobody and must reach it
            Path parent = Files.createDirectories(Path.of("/tmp", "qplab-test-" + UUID.randomUUID()));
            return parent.resolve("postgres");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

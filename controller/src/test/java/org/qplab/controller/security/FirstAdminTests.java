package org.qplab.controller.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.qplab.controller.api.Conflict;

/**
 * Two controllers on one database at their first start (issue 38): both find no account, one makes the admin, and
 * the other, whose insert finds it made, starts all the same; a password it generated is not left in a file, as it
 * is not the admin's.
 */
class FirstAdminTests {

    /** No account yet as far as count() saw, but another controller makes "admin" before this one's insert. */
    private static class MadeMeanwhile extends Accounts {

        MadeMeanwhile() {
            super(null, null);
        }

        @Override
        public long count() {
            return 0;
        }

        @Override
        public Account create(String name, String password, String role) {
            throw new Conflict("an account named '" + name + "' exists already");
        }
    }

    @Test
    void anAdminAnotherControllerMadeMeanwhileLetsThisOneStart(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("admin-password");
        new FirstAdmin(new MadeMeanwhile(), null, properties("given-password", file)).run(null);
        assertThat(file).doesNotExist();
    }

    @Test
    void aGeneratedPasswordThatIsNotTheAdminsIsNotLeftInItsFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("admin-password");
        new FirstAdmin(new MadeMeanwhile(), null, properties(null, file)).run(null);
        assertThat(file).as("the admin another controller made has another password").doesNotExist();
    }

    @Test
    void anotherRefusalStillStopsTheStart(@TempDir Path dir) {
        Accounts refusing = new MadeMeanwhile() {
            @Override
            public Account create(String name, String password, String role) {
                throw new IllegalStateException("the database refused");
            }
        };
        assertThatThrownBy(() -> new FirstAdmin(refusing, null, properties("given-password", dir.resolve("f"))).run(null))
                .hasMessage("the database refused");
    }

    private static SecurityProperties properties(String adminPassword, Path file) throws Exception {
        Files.createDirectories(file.getParent());
        return new SecurityProperties(false, List.of(), adminPassword, file, null,
                new SecurityProperties.Throttle(5, java.time.Duration.ofSeconds(1), java.time.Duration.ofMinutes(5),
                        java.time.Duration.ofMinutes(30)));
    }
}

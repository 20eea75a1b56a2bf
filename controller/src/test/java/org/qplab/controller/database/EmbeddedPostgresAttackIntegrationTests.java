package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue 31's first finding, acted out: another account on the host connects to the embedded PostgreSQL on
 * 127.0.0.1 (JDBC, in a JVM of its own) as the superuser or as qplab, to make itself admin. It is refused, and
 * cannot read the password file; given that password (which only the controller's user can read) the same
 * login works, as a non-superuser.
 *
 * <p>The attackers: daemon, an account that is neither the controller's nor the server's, and nobody. When
 * the controller runs as root, the server runs as nobody, so nobody owns the data directory and could read the
 * database's files without logging in at all: what this shows for nobody is only that the login is refused.
 * Needs root (to switch users); skipped otherwise.
 */
class EmbeddedPostgresAttackIntegrationTests {

    private static final String ATTACKER = """
            import java.nio.file.*;
            import java.sql.*;

            public class Attacker {
                public static void main(String[] args) throws Exception {
                    String url = args[0];
                    try {
                        Files.readString(Path.of(args[1]));
                        System.out.println("password file: read");
                    } catch (AccessDeniedException e) {
                        System.out.println("password file: denied");
                    }
                    for (int i = 2; i < args.length; i++) {
                        String[] login = args[i].split(":", 2);
                        String password = login[1].equals("$GIVEN") ? System.getenv("GIVEN_PASSWORD") : login[1];
                        try (Connection c = DriverManager.getConnection(url, login[0], password);
                             ResultSet rs = c.createStatement().executeQuery(
                                 "SELECT current_user || ' superuser=' || rolsuper FROM pg_roles WHERE rolname = current_user")) {
                            rs.next();
                            System.out.println(args[i] + " in as " + rs.getString(1));
                        } catch (SQLException e) {
                            System.out.println(args[i] + " refused: " + e.getSQLState() + " " + e.getMessage());
                        }
                    }
                }
            }
            """;

    @ParameterizedTest
    @ValueSource(strings = {"daemon", "nobody"})
    void anotherLocalUserCannotLogInWithoutThePasswordFileItCannotRead(String attacker) throws Exception {
        Assumptions.assumeTrue(OsUser.isRoot(), "acting as another OS user (setpriv) needs root; the tests run as uid " + OsUser.uid());
        int uid = passwdField(attacker, 2);
        Assumptions.assumeTrue(uid > 0, "no account " + attacker + " in /etc/passwd");
        Path dataDir = TestDatabase.freshDataDir();

        try (EmbeddedPostgres pg = EmbeddedPostgres.start(TestDatabase.config(dataDir))) {
            Path file = pg.passwordFile();
            assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
            assertThat(Files.getAttribute(file, "unix:uid")).as("owned by the controller's user (root)").isEqualTo(0);

            List<String> seen = attack(uid, passwdField(attacker, 3), pg, "postgres:", "postgres:postgres", "qplab:qplab", "qplab:$GIVEN");
            assertThat(seen.get(0)).isEqualTo("password file: denied");
            assertThat(seen.get(1)).as("the superuser: no line of pg_hba.conf lets it in")
                    .startsWith("postgres: refused: 28000 ")
                    .contains("no pg_hba.conf entry for host \"127.0.0.1\", user \"postgres\", database \"qplab\"");
            assertThat(seen.get(2)).startsWith("postgres:postgres refused: 28000 ");
            assertThat(seen.get(3)).startsWith("qplab:qplab refused: 28P01 ")
                    .contains("password authentication failed for user \"qplab\"");
            assertThat(seen.get(4)).as("the same account, given the password from the 0600 file")
                    .isEqualTo("qplab:$GIVEN in as qplab superuser=false");
        }
    }

    /** Runs the attacker as uid and gid (no other groups) with the password given only for the $GIVEN login. */
    private static List<String> attack(int uid, int gid, EmbeddedPostgres pg, String... logins) throws IOException, InterruptedException {
        // what the attacker runs must be readable by it: the driver jar and the program, in a 0755 directory
        Path dir = Files.createDirectories(pg.dataDir().resolveSibling("attacker"));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path driver = Path.of(org.postgresql.Driver.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        Files.copy(driver, dir.resolve("postgresql.jar"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Files.writeString(dir.resolve("Attacker.java"), ATTACKER);
        for (String f : List.of("postgresql.jar", "Attacker.java")) {
            Files.setPosixFilePermissions(dir.resolve(f), PosixFilePermissions.fromString("rw-r--r--"));
        }
        List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=" + uid, "--regid=" + gid, "--clear-groups", "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:-UsePerfData", "-Xmx64m",
                "-cp", dir.resolve("postgresql.jar").toString(), dir.resolve("Attacker.java").toString(),
                pg.jdbcUrl(pg.database()), pg.passwordFile().toString()));
        command.addAll(List.of(logins));
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        builder.environment().put("GIVEN_PASSWORD", pg.password());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(120, TimeUnit.SECONDS)).as(output).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
        return output.lines().filter(l -> l.startsWith("password file:") || l.contains(" in as ") || l.contains(" refused: ")).toList();
    }

    /** A numeric field of account's line in /etc/passwd (2: uid, 3: gid), -1 if there is none. */
    private static int passwdField(String account, int field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/etc/passwd"))) {
            String[] f = line.split(":");
            if (f.length > field && f[0].equals(account)) {
                return Integer.parseInt(f[field]);
            }
        }
        return -1;
    }
}

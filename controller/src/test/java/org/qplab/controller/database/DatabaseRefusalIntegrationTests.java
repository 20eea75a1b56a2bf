package org.qplab.controller.database;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.qplab.controller.ControllerIntegrationTest;
import org.qplab.testkit.ControllerProcess;

/**
 * The controller as its own process, as an operator starts it, refused by its database: one line, no stack trace.
 * Without a database port set, two of them run side by side.
 */
class DatabaseRefusalIntegrationTests {

    @Test
    void aPasswordFileOthersMayReadStopsTheControllerWithOneLineSayingWhichAndWhatToDo() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        Path file = dataDir.resolveSibling("postgres-password");
        Files.writeString(file, "a-password-others-may-read\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));

        assertThatThrownBy(() -> ControllerIntegrationTest.startProcess("database-refusal", ControllerProcess.freePort(),
                dataDir, ControllerProcess.freePort(), List.of()))
                .hasMessageStartingWith("the controller exited (1) while starting");
        List<String> log = Files.readAllLines(Path.of("target", "controller-database-refusal.log"));
        assertThat(log.stream().filter(l -> l.contains(file.toString())))
                .singleElement().asString()
                .contains(" ERROR ")
                .endsWith("qplab cannot start: the embedded PostgreSQL's password file " + file + " is open to other users "
                        + "(mode 0640): chmod 600 " + file + ", and change the password if others may have read it "
                        + "(README, \"The database\")");
        assertThat(log).as("no stack trace").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
        assertThat(dataDir).as("nothing made before the refusal").doesNotExist();
    }

    @Test
    void aDatabasePortAnotherProcessListensOnStopsTheControllerWithOneLineNamingTheSetting() throws Exception {
        Path dataDir = TestDatabase.freshDataDir();
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            int port = taken.getLocalPort();

            assertThatThrownBy(() -> ControllerIntegrationTest.startProcess("database-port-taken",
                    ControllerProcess.freePort(), dataDir, port, List.of()))
                    .hasMessageStartingWith("the controller exited (1) while starting");
            List<String> log = Files.readAllLines(Path.of("target", "controller-database-port-taken.log"));
            assertThat(log.stream().filter(l -> l.contains("qplab cannot start")))
                    .singleElement().asString()
                    .contains(" ERROR ")
                    .endsWith("qplab cannot start: port " + port + " on 127.0.0.1 (qplab.database.embedded.port) is in use "
                            + "by another process: stop it, or set qplab.database.embedded.port to another port, or to 0 "
                            + "(the default) for a free one at each start");
            assertThat(log).as("no stack trace").noneMatch(l -> l.startsWith("\tat ") || l.contains("Exception"));
        }
    }

    @Test
    void twoControllersWithDataDirectoriesOfTheirOwnAndNoDatabasePortSetRunSideBySide() throws Exception {
        try (ControllerProcess first = ControllerIntegrationTest.startProcess("side-by-side-1",
                     ControllerProcess.freePort(), TestDatabase.freshDataDir(), 0, List.of());
             ControllerProcess second = ControllerIntegrationTest.startProcess("side-by-side-2",
                     ControllerProcess.freePort(), TestDatabase.freshDataDir(), 0, List.of())) {
            int firstPort = databasePort(first.log());
            int secondPort = databasePort(second.log());
            assertThat(firstPort).as("each picked a free port of its own").isNotEqualTo(secondPort);
            for (ControllerProcess controller : List.of(first, second)) {
                HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(controller.url() + "/actuator/health/readiness")).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(health.statusCode()).as(controller.url()).isEqualTo(200);
                assertThat(health.body()).contains("\"status\":\"UP\"");
            }
        }
    }

    private static int databasePort(String controllerLog) {
        Matcher m = Pattern.compile("Embedded PostgreSQL listening on 127\\.0\\.0\\.1:(\\d+) ").matcher(controllerLog);
        assertThat(m.find()).as("the controller logs its database's port:\n%s", controllerLog).isTrue();
        return Integer.parseInt(m.group(1));
    }
}

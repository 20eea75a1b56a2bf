package org.qplab.agent.nvmeof;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvmetLockTests {

    /**
     * Another process (another agent) holds the host's lock: a step waits, then fails naming itself and the file;
     * once that process is killed (a dead agent) the kernel has dropped its lock and the step goes on.
     */
    @Test
    void anotherAgentsHoldMakesAStepWaitAndItsDeathReleasesIt(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm1");
        Path file = NvmetLock.file(host);
        Files.createDirectories(file.getParent());
        Path holder = root.resolve("Holder.java");
        Files.writeString(holder, """
                import java.nio.channels.FileChannel;
                import java.nio.file.*;
                public class Holder {
                    public static void main(String[] a) throws Exception {
                        FileChannel c = FileChannel.open(Path.of(a[0]), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                        c.lock();
                        System.out.println("locked");
                        Thread.sleep(60_000);
                    }
                }
                """);
        String java = ProcessHandle.current().info().command().orElse("java");
        Process other = new ProcessBuilder(java, holder.toString(), file.toString()).redirectErrorStream(true).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            assertThat(out.readLine()).isEqualTo("locked");
            assertThatThrownBy(() -> NvmetLock.acquire(host, "create nvmet port for run 3", Duration.ofMillis(300)))
                    .isInstanceOf(NvmeofException.class)
                    .hasMessage("create nvmet port for run 3: another qplab agent on this host has held " + file
                            + " for more than 300 ms (stuck in a configfs write? its agent's log says which step)");
            other.destroyForcibly();
            assertThat(other.waitFor(10, TimeUnit.SECONDS)).isTrue();
            try (NvmetLock lock = NvmetLock.acquire(host, "create nvmet port for run 3", Duration.ofSeconds(5))) {
                assertThat(lock).isNotNull();
            }
        } finally {
            other.destroyForcibly();
        }
    }

    /** Two runs in one agent take turns; a thread that holds it may take it again (a nested step). */
    @Test
    void runsOfOneAgentTakeTurns(@TempDir Path root) throws Exception {
        NvmeofHost host = FakeHost.of(root, "vm1");
        NvmetLock first = NvmetLock.acquire(host, "first");
        try (NvmetLock nested = NvmetLock.acquire(host, "nested")) {
            assertThat(nested).isNotNull();
        }
        CompletableFuture<String> second = CompletableFuture.supplyAsync(() -> {
            try (NvmetLock lock = NvmetLock.acquire(host, "second", Duration.ofSeconds(10))) {
                return "second ran";
            }
        });
        Thread.sleep(200);
        assertThat(second).as("waits while the first holds it").isNotDone();
        first.close();
        assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("second ran");
        assertThat(NvmetLock.file(host)).exists();
    }
}

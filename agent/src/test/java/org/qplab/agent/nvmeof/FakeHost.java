package org.qplab.agent.nvmeof;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** A host made of plain directories, files and symlinks under a temporary directory: configfs, sysfs, proc, dev. */
final class FakeHost {

    private FakeHost() {
    }

    static NvmeofHost of(Path root, String agentId) throws IOException {
        for (String dir : List.of("config", "sys/module", "proc/self", "dev")) {
            Files.createDirectories(root.resolve(dir));
        }
        Files.writeString(root.resolve("proc/self/status"), "Name:\tjava\nUid:\t0\t0\t0\t0\n");
        Files.writeString(root.resolve("proc/mounts"), "none " + root.resolve("config") + " configfs rw 0 0\n");
        Files.writeString(root.resolve("proc/filesystems"), "nodev\tconfigfs\n");
        return new NvmeofHost(agentId, List.of(), () -> "198.18.0.11", root.resolve("config"), root.resolve("sys"),
                root.resolve("proc"), root.resolve("dev"), root.resolve("run/lock"));
    }

    static Path mkdirs(Path dir) throws IOException {
        return Files.createDirectories(dir);
    }
}

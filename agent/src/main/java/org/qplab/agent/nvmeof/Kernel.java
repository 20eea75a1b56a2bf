package org.qplab.agent.nvmeof;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** What a target or a local run needs the kernel to have before it creates anything: configfs mounted, modules loaded. */
final class Kernel {

    private static final Duration MODPROBE_TIMEOUT = Duration.ofSeconds(60);

    private Kernel() {
    }

    /** Mounts configfs at host.configfs() unless it is mounted there. */
    static void mountConfigfs(NvmeofHost host) {
        for (String line : lines(host.proc().resolve("mounts"))) {
            String[] f = line.split(" ");
            if (f.length > 2 && f[2].equals("configfs") && f[1].equals(host.configfs().toString())) {
                return;
            }
        }
        Command.require("mount configfs", Duration.ofSeconds(10),
                List.of("mount", "-t", "configfs", "none", host.configfs().toString()));
    }

    /** Loads a module (with its parameters) unless /sys/module has it. */
    static void load(NvmeofHost host, String module, String... parameters) {
        if (Files.isDirectory(host.sysfs().resolve("module").resolve(module.replace('-', '_')))) {
            return;
        }
        List<String> argv = new ArrayList<>(List.of("modprobe", module));
        argv.addAll(List.of(parameters));
        Command.require("load module " + module, MODPROBE_TIMEOUT, argv);
    }

    private static List<String> lines(Path path) {
        try {
            return Files.readAllLines(path);
        } catch (java.io.IOException | RuntimeException e) {
            return List.of();
        }
    }
}

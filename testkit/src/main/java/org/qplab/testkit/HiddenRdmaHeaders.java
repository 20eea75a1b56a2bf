package org.qplab.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An include path without rdma-core's headers, to build the engine as a machine without libibverbs-dev and
 * librdmacm-dev would: the compiler's default include directories rebuilt from symlinks minus infiniband/ and rdma/
 * ({@code -nostdinc -isystem ...}, no privileges needed), made by the engine module's src/test/c/hide-rdma-headers.sh. The
 * symlink farm lives under target/tmp, not under a JUnit @TempDir, whose cleanup warns about every link it deletes;
 * close deletes it without following the links.
 */
public final class HiddenRdmaHeaders implements AutoCloseable {

    private final Path engineDir;
    private final String cc;
    private final Path farm;
    private final List<String> flags;

    private HiddenRdmaHeaders(Path engineDir, String cc, Path farm, List<String> flags) {
        this.engineDir = engineDir;
        this.cc = cc;
        this.farm = farm;
        this.flags = flags;
    }

    /** The include path of compiler cc, for the engine module in engineDir. */
    public static HiddenRdmaHeaders of(Path engineDir, String cc) throws IOException, InterruptedException {
        Path farm = TestDirs.fresh("qpb-include-");
        Ran hide = Ran.run(List.of("sh", engineDir.resolve("src/test/c/hide-rdma-headers.sh").toAbsolutePath().toString(),
                farm.toString(), cc), "");
        if (hide.exit() != 0) {
            TestDirs.delete(farm);
            throw new AssertionError("hide-rdma-headers.sh exited " + hide.exit() + ":\n" + hide.output());
        }
        return new HiddenRdmaHeaders(engineDir, cc, farm, List.of(hide.output().strip().split(" ")));
    }

    /** The compiler flags of the include path. */
    public List<String> flags() {
        return flags;
    }

    /** The engine's Makefile (src/main/c) with the headers hidden: {@code make -j2 OUT=out CC=cc CPPFLAGS=... targets}. */
    public Ran make(Path out, String... targets) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("make", "-j2", "-C",
                engineDir.resolve("src/main/c").toAbsolutePath().toString(), "OUT=" + out, "CC=" + cc,
                "CPPFLAGS=" + String.join(" ", flags)));
        command.addAll(Arrays.asList(targets));
        return Ran.run(command, "");
    }

    @Override
    public void close() throws IOException {
        TestDirs.delete(farm);
    }
}

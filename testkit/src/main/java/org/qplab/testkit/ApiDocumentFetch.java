package org.qplab.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * {@code fetch CONTROLLER_JAR WORK_DIR OUTPUT_FILE}: starts the packaged controller, writes its /v3/api-docs to the
 * file, stops it. The api module's build runs it before it compiles anything, to generate its client from the document.
 */
public final class ApiDocumentFetch {

    private ApiDocumentFetch() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 4 || !args[0].equals("fetch")) {
            System.err.println("usage: java -cp qplab-testkit.jar " + ApiDocumentFetch.class.getName()
                    + " fetch CONTROLLER_JAR WORK_DIR OUTPUT_FILE");
            System.exit(2);
        }
        Path workDir = Path.of(args[2]);
        try (ControllerProcess controller = ControllerProcess.start(ControllerProcess.Launch.jar(Path.of(args[1])), workDir,
                "api-document", ControllerProcess.freePort(), workDir.resolve("controller-db"), ControllerProcess.freePort(),
                List.of())) {
            Path out = Path.of(args[3]);
            Files.createDirectories(out.toAbsolutePath().getParent());
            Files.writeString(out, controller.apiDocument());
            System.out.println("OpenAPI document of " + args[1] + " written to " + out);
        }
    }
}

package org.qplab.protocol;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The one documented shape of a run's summary, whichever provider wrote it: {@value #RESOURCE} (JSON Schema 2020-12,
 * on the classpath beside this class). The engine's summary (tcp, verbs: qpb.h's qpb_summary) and the agent's
 * nvmeof summary (NvmeofSession, FioSummary) follow it; tests validate real summaries against it with the
 * protocol test-jar's {@code RunSummaryValidator}.
 */
public final class RunSummarySchema {

    /** The schema's classpath resource. */
    public static final String RESOURCE = "/org/qplab/protocol/run-summary.schema.json";

    private RunSummarySchema() {
    }

    /** The schema's text. */
    public static String text() {
        try (InputStream in = RunSummarySchema.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is not on the classpath");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("read " + RESOURCE, e);
        }
    }
}

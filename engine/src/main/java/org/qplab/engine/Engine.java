package org.qplab.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import jnr.ffi.LibraryLoader;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * Loads libqpbench.so once per process. The library ships in the agent jar
 * (native/linux-x86_64/); it is extracted into a private directory and loaded by absolute path.
 * The system property {@code qplab.engine.library} (or env QPLAB_ENGINE_LIBRARY) points at another build.
 */
public final class Engine {

    public static final String LIBRARY_PROPERTY = "qplab.engine.library";
    /** The environment variable that does the same when the system property is not set. */
    public static final String LIBRARY_ENV = "QPLAB_ENGINE_LIBRARY";
    private static final String EXTRACT_PREFIX = "qplab-engine-";
    private static final String RESOURCE = "/native/linux-x86_64/libqpbench.so";
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private static final class Holder {
        static final QpbLibrary LIBRARY;
        static final Throwable CAUSE;

        static {
            QpbLibrary library = null;
            Throwable cause = null;
            try {
                Path override = override();
                Path path = override != null ? override : extract();
                try {
                    // failImmediately binds every function now, so the library is mapped when load returns
                    library = LibraryLoader.create(QpbLibrary.class).failImmediately().load(path.toString());
                } finally {
                    if (override == null) {
                        removeExtracted(path);
                    }
                }
            } catch (Throwable t) {
                cause = t;
            }
            LIBRARY = library;
            CAUSE = cause;
        }
    }

    private Engine() {
    }

    public static boolean isAvailable() {
        return Holder.LIBRARY != null;
    }

    /** Why the engine cannot be loaded, or null when it can. */
    public static Throwable unavailabilityCause() {
        return Holder.CAUSE;
    }

    static QpbLibrary library() {
        if (Holder.LIBRARY == null) {
            throw new IllegalStateException("native engine libqpbench.so is unavailable: " + Holder.CAUSE, Holder.CAUSE);
        }
        return Holder.LIBRARY;
    }

    /** {"abi":2,"version":..,"providers":[..]} */
    public static String info() {
        return readString((buf, len) -> library().qpb_engine_info(buf, len), "qpb_engine_info", null);
    }

    /**
     * This host's RDMA devices and their limits as the engine sees them (qpb_devices in qpb.h):
     * {"devices":[{"name","max_qp",...,"ports":[...]}]} plus "unavailable":"why" when there is none.
     */
    public static String devices() {
        return readString((buf, len) -> library().qpb_devices(buf, len), "qpb_devices", null);
    }

    /**
     * Every rule of the engine's spec table and of its rules between keys that the spec breaks (empty: a
     * session would take it), without creating anything: qpb_spec_check, the same checks qpb_session_create
     * makes before it touches a device. Fast (a few microseconds) but native: not on an event loop.
     */
    public static List<SpecViolation> checkSpec(String specJson) {
        QpbLibrary lib = library();
        for (int len = 16 * 1024; len <= 16 * 1024 * 1024; len *= 4) {
            byte[] out = new byte[len];
            int status = lib.qpb_spec_check(specJson, out, len);
            if (status == QpbLibrary.QPB_OK) {
                return List.of();
            }
            if (status == QpbLibrary.QPB_EINVAL || status == QpbLibrary.QPB_EUNSUPPORTED) {
                List<SpecViolation> violations = new ArrayList<>();
                for (JsonNode v : JSON.readTree(text(out))) {
                    violations.add(new SpecViolation(v.get("field").stringValue(), v.get("message").stringValue()));
                }
                return List.copyOf(violations);
            }
            if (status != QpbLibrary.QPB_ENOSPC) {
                throw new EngineException("qpb_spec_check", status, text(out));
            }
        }
        throw new EngineException("qpb_spec_check", QpbLibrary.QPB_ENOSPC, "violations larger than 16 MiB");
    }

    /**
     * The engine's spec table as JSON (qpb_spec_schema): every key a spec may hold, its type (format bytes for a
     * byte count), its bounds or its choices, its default, and whether only the verbs provider takes it. The rules
     * between keys are checkSpec's.
     */
    public static String specSchema() {
        return readString((buf, len) -> library().qpb_spec_schema(buf, len), "qpb_spec_schema", null);
    }

    /**
     * Every spec key's default as the engine's table has it (specSchema), in its order: a Long, Boolean or String;
     * null for a key the engine requires (msg_size). Native: not on an event loop.
     */
    public static Map<String, Object> specDefaults() {
        Map<String, Object> defaults = new LinkedHashMap<>();
        for (JsonNode key : JSON.readTree(specSchema())) {
            JsonNode d = key.get("default");
            defaults.put(key.get("name").stringValue(), d == null ? null
                    : d.isString() ? d.stringValue() : d.isBoolean() ? (Object) d.booleanValue() : d.longValue());
        }
        return Collections.unmodifiableMap(defaults);
    }

    /** The NUL-terminated UTF-8 text the engine wrote into buf. */
    static String text(byte[] buf) {
        int end = 0;
        while (end < buf.length && buf[end] != 0) {
            end++;
        }
        return new String(buf, 0, end, StandardCharsets.UTF_8);
    }

    /** The C side's view of qpb_trace_record's layout, for the binding's layout test. */
    static String traceRecordLayout() {
        return readString((buf, len) -> library().qpb_trace_record_layout(buf, len), "qpb_trace_record_layout", null);
    }

    static NativeTraceRecord traceRecordLayoutOnJavaSide() {
        return new NativeTraceRecord(jnr.ffi.Runtime.getRuntime(library()));
    }

    static NativeInterval intervalLayoutOnJavaSide() {
        return new NativeInterval(jnr.ffi.Runtime.getRuntime(library()));
    }

    static NativeInterval.Bucket bucketLayoutOnJavaSide() {
        return new NativeInterval.Bucket(jnr.ffi.Runtime.getRuntime(library()));
    }

    /** The C side's view of qpb_interval's layout, for the binding's layout test. */
    static String intervalLayout() {
        return readString((buf, len) -> library().qpb_interval_layout(buf, len), "qpb_interval_layout", null);
    }

    interface BufferCall {
        int call(byte[] buf, int len);
    }

    /** Calls a fill-this-buffer function, growing the buffer while the engine answers QPB_ENOSPC. */
    static String readString(BufferCall call, String name, EngineSession session) {
        for (int len = 16 * 1024; len <= 64 * 1024 * 1024; len *= 4) {
            byte[] buf = new byte[len];
            int status = call.call(buf, len);
            if (status == QpbLibrary.QPB_OK) {
                int end = 0;
                while (end < len && buf[end] != 0) {
                    end++;
                }
                return new String(buf, 0, end, StandardCharsets.UTF_8);
            }
            if (status != QpbLibrary.QPB_ENOSPC) {
                throw new EngineException(name, status, session == null ? "" : session.lastError());
            }
        }
        throw new EngineException(name, QpbLibrary.QPB_ENOSPC, "result larger than 64 MiB");
    }

    /** The library the user pointed at, or null for the one in the jar. */
    private static Path override() throws IOException {
        String override = System.getProperty(LIBRARY_PROPERTY, System.getenv(LIBRARY_ENV));
        if (override == null || override.isBlank()) {
            return null;
        }
        Path path = Path.of(override).toAbsolutePath();
        if (!Files.isReadable(path)) {
            throw new IOException(LIBRARY_PROPERTY + " points at " + path + ", which is not a readable file");
        }
        return path;
    }

    private static Path extract() throws IOException {
        try (InputStream in = Engine.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IOException(RESOURCE + " is not in the agent jar (build it with ./mvnw package)");
            }
            Path dir = Files.createTempDirectory(EXTRACT_PREFIX,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            Path lib = dir.resolve("libqpbench.so");
            Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
            return lib;
        }
    }

    /** The copy out of the jar is removed once mapped: an agent that is killed leaves nothing behind. */
    private static void removeExtracted(Path lib) {
        Path dir = lib.getParent();
        try {
            Files.deleteIfExists(lib);
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            lib.toFile().deleteOnExit();
            dir.toFile().deleteOnExit();
        }
    }
}

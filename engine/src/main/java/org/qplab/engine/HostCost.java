package org.qplab.engine;

import java.lang.ref.Cleaner;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import jnr.ffi.Pointer;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;

/**
 * What a span the engine does not run itself cost this host (qpb_cost_* in qpb.h; a provider whose work is done by
 * other programs and the kernel, such as nvmeof's fio): /proc/stat and an RDMA port's sysfs counters, or the host's
 * TCP counters, read by the engine's C code as {@link #begin} makes it and as {@link #end} is called, and
 * {@link #json()}: the engine summary's "cpu", "counters" and "warnings" with the engine's own CPU figures null.
 * {@link #close()} frees the readings, ended or not; one that is never closed is freed once unreachable. Every call
 * blocks on file reads (sysfs, /proc): never on an event loop.
 */
public final class HostCost implements AutoCloseable {

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Cleaner CLEANER = Cleaner.create();

    /**
     * Where the kernel's files are: /proc and /sys/class/infiniband on a host, fake trees in tests.
     *
     * @param proc       /proc (stat, net/snmp)
     * @param infiniband /sys/class/infiniband (DEVICE/ports/PORT/counters, hw_counters and gid_attrs/ndevs)
     */
    public record Roots(Path proc, Path infiniband) {
        /** This host's. */
        public static final Roots HOST = new Roots(Path.of("/proc"), Path.of("/sys/class/infiniband"));
    }

    /** The native readings, freed once: by close or, if it never comes, when the HostCost is unreachable. */
    private static final class Readings implements Runnable {
        private final QpbLibrary lib;
        private final Pointer handle;

        Readings(QpbLibrary lib, Pointer handle) {
            this.lib = lib;
            this.handle = handle;
        }

        @Override
        public void run() {
            lib.qpb_cost_destroy(handle);
        }
    }

    private final QpbLibrary lib;
    private final Pointer handle;
    private final Cleaner.Cleanable cleanable;
    private boolean closed;

    private HostCost(QpbLibrary lib, Pointer handle) {
        this.lib = lib;
        this.handle = handle;
        this.cleanable = CLEANER.register(this, new Readings(lib, handle));
    }

    /**
     * Begins a span: reads /proc/stat and the counters now. specJson is qpb_cost_begin's: "counters" ("sysfs" or
     * "snmp"), "device", "ib_port", "address", "proc", "infiniband" (qpb.h). An invalid spec throws with the engine's
     * words; a port that cannot be found does not (the counters' "error" names it).
     */
    public static HostCost begin(String specJson) {
        QpbLibrary lib = Engine.library();
        byte[] err = new byte[1024];
        Pointer handle = lib.qpb_cost_begin(specJson, err, err.length);
        if (handle == null || handle.address() == 0) {
            throw new EngineException("qpb_cost_begin", QpbLibrary.QPB_EINVAL, Engine.text(err));
        }
        return new HostCost(lib, handle);
    }

    /**
     * An RDMA port's counters: device's first port, or, with device empty, the first port with a GID on the network
     * interface that has address (an IP address of this host).
     */
    public static HostCost rdma(String device, String address, Roots roots) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("counters", "sysfs");
        if (device != null && !device.isEmpty()) {
            spec.put("device", device);
        }
        if (address != null && !address.isEmpty()) {
            spec.put("address", address);
        }
        return begin(spec, roots);
    }

    /** The host's TCP counters (/proc/net/snmp's Tcp line: every connection of the host moves them). */
    public static HostCost tcp(Roots roots) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("counters", "snmp");
        return begin(spec, roots);
    }

    private static HostCost begin(Map<String, Object> spec, Roots roots) {
        spec.put("proc", roots.proc().toString());
        spec.put("infiniband", roots.infiniband().toString());
        return begin(JSON.writeValueAsString(spec));
    }

    /** Ends the span: reads /proc/stat and the counters again. Later calls change nothing. */
    public synchronized void end() {
        open();
        int status = lib.qpb_cost_end(handle);
        if (status != QpbLibrary.QPB_OK) {
            throw new EngineException("qpb_cost_end", status, "");
        }
    }

    /**
     * {"cpu":{...},"counters":{...},"warnings":[...]} in the engine summary's keys and meanings, with
     * engine_user_ns, engine_sys_ns and engine_util_pct null and span_ns from begin to end; before {@link #end}:
     * span_ns 0, the host figures null and every counter unreadable, "no reading after the run".
     */
    public synchronized String json() {
        open();
        return Engine.readString((buf, len) -> lib.qpb_cost_json(handle, buf, len), "qpb_cost_json", null);
    }

    /** What a span that never began reports: span_ns 0, the CPU figures null, "counters" null, no warnings. */
    public static String neverBegun() {
        QpbLibrary lib = Engine.library();
        return Engine.readString((buf, len) -> lib.qpb_cost_json(null, buf, len), "qpb_cost_json", null);
    }

    private void open() {
        if (closed) {
            throw new IllegalStateException("the host cost readings are closed");
        }
    }

    /** Frees the readings, ended or not; later calls do nothing. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            cleanable.clean();
        }
    }
}

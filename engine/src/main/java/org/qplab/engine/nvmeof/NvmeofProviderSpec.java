package org.qplab.engine.nvmeof;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.SpecKey;
import org.qplab.engine.SpecViolation;

/**
 * nvmeof (fio on NVMe-oF) as a provider: its keys and rules are {@link NvmeofSpec}'s; a run over a fabric (rdma,
 * tcp) is a pair, the server host the target and the client the initiator; transport local runs fio on the target's
 * own backing device, alone on the server host.
 */
public final class NvmeofProviderSpec implements ProviderSpec {

    public static final NvmeofProviderSpec NVMEOF = new NvmeofProviderSpec();

    /**
     * What a stored point carries at nvmeof's defaults. interval_ms is fio's status interval: written so that the
     * run's timeline, its interval CSV and the live view place interval k at k x nvmeof's interval, not the engine's.
     */
    private static final List<String> EXPLICIT = List.of("transport", "rw", "bs", "iodepth", "numjobs", "ioengine",
            "interval_ms");

    /** What the initiator's run step adds to fio's runtime: it also starts fio and disconnects inside the step. */
    static final Duration END_MARGIN = Duration.ofSeconds(30);

    /**
     * How long a side may take to prepare: it first removes what dead runs left, may load modules (modprobe), makes a
     * null_blk device and the configfs target, and probes fio and nvme-cli; on a small or busy host (the Soft-RoCE
     * lab under load) that took over the engine's 30 s.
     */
    static final Duration PREPARE = Duration.ofSeconds(90);

    private NvmeofProviderSpec() {
    }

    @Override
    public List<String> providers() {
        return List.of(NvmeofSpec.PROVIDER);
    }

    @Override
    public List<SpecKey> keys() {
        List<SpecKey> keys = new ArrayList<>();
        for (NvmeofSpec.Key k : NvmeofSpec.KEYS) {
            keys.add(new SpecKey(k.name(), k.type(), k.bytes(), k.choices(), k.defaultValue(), providers()));
        }
        return keys;
    }

    @Override
    public List<SpecViolation> check(Map<String, Object> point) {
        return NvmeofSpec.check(point);
    }

    @Override
    public Map<String, Object> explicitDefaults(Map<String, Object> point) {
        Map<String, Object> defaults = new LinkedHashMap<>();
        defaults.put("provider", NvmeofSpec.PROVIDER);
        EXPLICIT.forEach(key -> defaults.put(key, NvmeofSpec.defaultOf(key)));
        return defaults;
    }

    @Override
    public Counts counts() {
        return Counts.IOS;
    }

    @Override
    public String pairOnly(Map<String, Object> point) {
        return local(point) ? null : "nvmeof over rdma or tcp is a pair run: the server host is the NVMe-oF target, "
                + "the client the initiator (hosts: {pairs: [[client, server], ...]} or {group: [...]}); on one host "
                + "use transport local";
    }

    @Override
    public boolean onServerAlone(Map<String, Object> point) {
        return local(point);
    }

    private static boolean local(Map<String, Object> point) {
        return "local".equals(point.get("transport"));
    }

    @Override
    public Long connectionLimit(Map<String, Object> point) {
        return null;
    }

    /** fio runs for runtime_ms (its default when size is unset); by size it is not time based. */
    @Override
    public Timing timing(Map<String, Object> point) {
        Object runtime = point.containsKey("size") ? null
                : point.getOrDefault("runtime_ms", NvmeofSpec.defaultOf("runtime_ms"));
        return new Timing("runtime_ms", runtime instanceof Number ms && ms.longValue() > 0
                ? Duration.ofMillis(ms.longValue()) : null, END_MARGIN, PREPARE);
    }

    /** fio's runtime_ms or size. */
    @Override
    public List<String> lengthKeys() {
        return List.of("runtime_ms", "size");
    }

    /**
     * The side's missing pieces (the hello's nvmeof facts: missing.target|initiator.TRANSPORT, listed for the default
     * backing, null_blk: a file or device backing needs no null_blk module, and a local run on one no configfs
     * either), and a backing_path the serving side does not list.
     */
    @Override
    public List<SpecViolation> hostRefusals(Map<String, Object> point, Side side, Map<String, Object> facts) {
        if (facts == null) {
            return List.of();
        }
        String transport = String.valueOf(point.get("transport"));
        String as = side.serves() ? "target" : "initiator";
        if (!(facts.get("nvmeof") instanceof Map<?, ?> nvmeof)) {
            return List.of(new SpecViolation("hosts", side.role() + " " + side.host() + " cannot be an NVMe-oF " + as
                    + " over " + transport + ": its agent reports no NVMe-oF capabilities (an agent without the "
                    + "nvmeof provider; update it)"));
        }
        List<SpecViolation> refusals = new ArrayList<>();
        String backing = String.valueOf(point.getOrDefault("backing", NvmeofSpec.defaultOf("backing")));
        if (nvmeof.get("missing") instanceof Map<?, ?> missing && missing.get(as) instanceof Map<?, ?> byTransport
                && byTransport.get(transport) instanceof List<?> listed) {
            List<String> pieces = listed.stream().map(String::valueOf)
                    .filter(piece -> "null_blk".equals(backing) || !(piece.equals("module null_blk")
                            || (transport.equals("local") && piece.equals("configfs"))))
                    .toList();
            if (!pieces.isEmpty()) {
                refusals.add(new SpecViolation("hosts", side.role() + " " + side.host() + " cannot be an NVMe-oF " + as
                        + " over " + transport + ": missing " + String.join(", ", pieces)));
            }
        }
        if (side.serves() && point.get("backing_path") != null && NvmeofSpec.check(point).isEmpty()) {
            List<String> listed = nvmeof.get("backing_paths") instanceof List<?> paths
                    ? paths.stream().map(String::valueOf).toList() : List.of();
            SpecViolation refused = NvmeofSpec.of(point).checkBackingPath(side.host(), listed);
            if (refused != null) {
                refusals.add(refused);
            }
        }
        return refusals;
    }
}

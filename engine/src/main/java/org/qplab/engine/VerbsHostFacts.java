package org.qplab.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a host's RDMA devices, as its agent's hello lists them ({@code rdma_devices}: the engine's inventory,
 * {@code qpb_devices} in qpb_device.c, with {@code rdma_unavailable} when there is none), say of a verbs point: no
 * device at all, no device of the point's name, no such port, and the device capabilities qpb_plan_run
 * (qpb_check.c) refuses a run for, in its words: transport xrc without IBV_DEVICE_XRC, an atomic op on a device with
 * atomic_cap IBV_ATOMIC_NONE, lock_model thread_domain without thread domains, inline_size above max_inline_data,
 * post_api wr (given; its default falls back to legacy) without the extended QP API ({@code wr_api}), odp on a device
 * whose {@code odp} entry (odp_caps) lacks on-demand paging or the point's op over its transport (send: send and recv,
 * or srq_recv with an SRQ), and on an iWARP device ({@code transport} iwarp) any transport but rc, or rc without
 * rdma_cm. A device entry without one of these attributes (an older agent) is not judged on it.
 * buffers hugepages is not judged here: the hello does not say how many hugepages a host has reserved, so its engine
 * refuses it at prepare.
 *
 * <p>The device a point runs on is the engine's choice (qpb_device_open): the one its {@code device} key names, else
 * the first whose port {@code ib_port} is ACTIVE, else the last one listed.
 */
final class VerbsHostFacts {

    private static final String NO_ATOMICS = "IBV_ATOMIC_NONE";

    private VerbsHostFacts() {
    }

    /** The refusals for a verbs point on this side, from its facts' rdma_devices; empty when they are not listed. */
    static List<SpecViolation> refusals(Map<String, Object> point, ProviderSpec.Side side, Map<String, Object> facts,
                                        Map<String, Object> defaults) {
        if (!(facts.get("rdma_devices") instanceof List<?> listed)) {
            return List.of(); // an agent that does not list its devices: its engine refuses at prepare
        }
        String who = side.role() + " " + side.host();
        List<Map<?, ?>> devices = listed.stream().filter(d -> d instanceof Map<?, ?>).<Map<?, ?>>map(d -> (Map<?, ?>) d).toList();
        if (devices.isEmpty()) {
            Object why = facts.get("rdma_unavailable");
            return List.of(new SpecViolation("hosts", who + " cannot run provider " + point.get("provider") + ": "
                    + (why != null ? why : "its agent reports no RDMA device")));
        }
        Object wanted = value(point, "device", defaults);
        long port = value(point, "ib_port", defaults) instanceof Number n ? n.longValue() : 1;
        Map<?, ?> device = chosen(devices, wanted instanceof String name && !name.isEmpty() ? name : null, port);
        if (device == null) {
            return List.of(new SpecViolation("device", who + " has no RDMA device " + wanted + " (its devices: "
                    + String.join(", ", devices.stream().map(d -> String.valueOf(d.get("name"))).toList()) + ")"));
        }
        String name = String.valueOf(device.get("name"));
        List<SpecViolation> refusals = new ArrayList<>();
        if (device.get("ports") instanceof List<?> ports && ports.stream()
                .noneMatch(p -> p instanceof Map<?, ?> m && m.get("port") instanceof Number n && n.longValue() == port)) {
            refusals.add(new SpecViolation("ib_port", who + " cannot run ib_port " + port + ": " + name + " has no port "
                    + port));
        }
        Object transport = value(point, "transport", defaults);
        if ("iwarp".equals(device.get("transport"))) { // qpb_check.c's plan_iwarp
            if (!"rc".equals(transport)) {
                refusals.add(new SpecViolation("transport", who + " cannot run transport " + transport + ": " + name
                        + " is an iWARP device (iWARP has reliable connections only: use transport rc)"));
            } else if (!Boolean.TRUE.equals(value(point, "rdma_cm", defaults))) {
                refusals.add(new SpecViolation("rdma_cm", who + " cannot run rdma_cm false: " + name
                        + " is an iWARP device, whose QPs connect only through rdma_cm (use rdma_cm true)"));
            }
        } else if ("xrc".equals(transport) && Boolean.FALSE.equals(device.get("xrc"))) {
            refusals.add(new SpecViolation("transport", who + " cannot run transport xrc: " + name
                    + " does not report IBV_DEVICE_XRC"));
        }
        Object op = value(point, "op", defaults);
        if (op instanceof String o && o.startsWith("atomic_") && NO_ATOMICS.equals(device.get("atomic_cap"))) {
            refusals.add(new SpecViolation("op", who + " cannot run op " + o + ": " + name
                    + " reports atomic_cap IBV_ATOMIC_NONE (no RDMA atomics)"));
        }
        if ("thread_domain".equals(value(point, "lock_model", defaults))
                && Boolean.FALSE.equals(device.get("thread_domain"))) {
            refusals.add(new SpecViolation("lock_model", who + " cannot run lock_model thread_domain: " + name
                    + " has no thread domains"));
        }
        if (point.get("inline_size") instanceof Number inline && device.get("max_inline_data") instanceof Number max
                && inline.longValue() > max.longValue()) {
            refusals.add(new SpecViolation("inline_size", who + " cannot run inline_size " + inline + " B: " + name
                    + " takes at most max_inline_data " + max + " B"));
        }
        odp(point, defaults, device, who, name, refusals);
        if ("wr".equals(point.get("post_api")) && Boolean.FALSE.equals(device.get("wr_api"))) {
            refusals.add(new SpecViolation("post_api", who + " cannot run post_api wr: " + name
                    + " has no extended QP API (ibv_qp_ex; use post_api legacy)"));
        }
        return refusals;
    }

    /** odp: what qpb_check.c's plan_odp refuses, from the device's {"supported", "rc": ["send", ...], ...}. */
    private static void odp(Map<String, Object> point, Map<String, Object> defaults, Map<?, ?> device, String who,
                            String name, List<SpecViolation> refusals) {
        if (!Boolean.TRUE.equals(value(point, "odp", defaults)) || !(device.get("odp") instanceof Map<?, ?> odp)) {
            return;
        }
        if (!Boolean.TRUE.equals(odp.get("supported"))) {
            refusals.add(new SpecViolation("odp", who + " cannot run odp: " + name
                    + " does not report IBV_ODP_SUPPORT (no on-demand paging)"));
            return;
        }
        String op = String.valueOf(value(point, "op", defaults));
        String transport = String.valueOf(value(point, "transport", defaults));
        boolean srq = !"none".equals(value(point, "srq", defaults)) || "xrc".equals(transport);
        List<String> need = switch (op) {
            case "send" -> List.of("send", srq ? "srq_recv" : "recv");
            case "write", "read" -> List.of(op);
            default -> List.of("atomic");
        };
        List<String> have = odp.get(transport) instanceof List<?> l ? l.stream().map(String::valueOf).toList() : List.of();
        List<String> missing = need.stream().filter(o -> !have.contains(o)).toList();
        if (!missing.isEmpty()) {
            refusals.add(new SpecViolation("odp", who + " cannot run odp: " + name + " has no on-demand paging for op "
                    + op + " over " + transport + " (its " + transport + " ODP ops: "
                    + (have.isEmpty() ? "none" : String.join(", ", have)) + "; missing " + String.join(", ", missing)
                    + ")"));
        }
    }

    /** The engine's pick: by name; else the first with port ACTIVE, else the last (null: no device of that name). */
    private static Map<?, ?> chosen(List<Map<?, ?>> devices, String name, long port) {
        if (name != null) {
            return devices.stream().filter(d -> name.equals(d.get("name"))).findFirst().orElse(null);
        }
        for (Map<?, ?> device : devices) {
            if (device.get("ports") instanceof List<?> ports && ports.stream().anyMatch(p -> p instanceof Map<?, ?> m
                    && m.get("port") instanceof Number n && n.longValue() == port && "ACTIVE".equals(m.get("state")))) {
                return device;
            }
        }
        return devices.get(devices.size() - 1);
    }

    private static Object value(Map<String, Object> point, String key, Map<String, Object> defaults) {
        return point.containsKey(key) ? point.get(key) : defaults.get(key);
    }
}

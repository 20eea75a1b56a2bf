package org.qplab.controller.run;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * What makes two runs like each other: their parameters and the host they ran on (hardware and
 * software: kernel, CPU, memory, OS, Java, engine, rdma-core, RDMA devices). Two runs with the same fingerprint
 * measure the same thing, so one can be the other's baseline.
 *
 * <p>The fingerprint is the SHA-256 of the canonical JSON {"params": …, "host": …}, keys sorted.
 * Of the RDMA devices only what changes results counts (model, firmware, link layer, MTU), not GIDs,
 * GUIDs or addresses, which differ between otherwise identical hosts.
 *
 * <p>A parameter added to the engine after runs were stored, at its default, is left out
 * ({@link #IMPLIED_DEFAULTS}): a run stored before it existed ran with that default, so both are alike.
 */
public final class Fingerprint {

    /** Host facts that make two runs unlike when they differ. */
    public static final List<String> HOST_FACTS =
            List.of("kernel", "cpu_model", "cpus", "memory_kib", "os", "java", "engine", "rdma_core", "rdma_devices");

    /** Parameters runs did not record before the engine had them, at the value they ran with then. */
    public static final Map<String, Object> IMPLIED_DEFAULTS = Map.of("mode", "bw", "bidirectional", false);

    private static final JsonMapper CANONICAL = JsonMapper.builder()
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

    private Fingerprint() {
    }

    /** The fingerprint of a run that ran with these params on a host with these facts. */
    public static String of(Map<String, Object> params, Map<String, Object> hostFacts) {
        Map<String, Object> identity = new LinkedHashMap<>();
        identity.put("params", withoutImpliedDefaults(params));
        identity.put("host", host(hostFacts));
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(CANONICAL.writeValueAsBytes(identity));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The params with every implied default filled in where a run did not record it: how a run stored before
     * the parameter existed ran, so it pairs with today's runs of the same point.
     */
    public static Map<String, Object> withImpliedDefaults(Map<String, Object> params) {
        if (params == null) {
            return null;
        }
        Map<String, Object> filled = new LinkedHashMap<>(params);
        IMPLIED_DEFAULTS.forEach(filled::putIfAbsent);
        return filled;
    }

    private static Map<String, Object> withoutImpliedDefaults(Map<String, Object> params) {
        if (params == null) {
            return null;
        }
        Map<String, Object> kept = new LinkedHashMap<>(params);
        IMPLIED_DEFAULTS.forEach(kept::remove);
        return kept;
    }

    /** The host facts that count, each present (null when the agent did not report it). */
    public static Map<String, Object> host(Map<String, Object> facts) {
        Map<String, Object> host = new LinkedHashMap<>();
        for (String fact : HOST_FACTS) {
            Object value = facts == null ? null : facts.get(fact);
            host.put(fact, fact.equals("rdma_devices") ? devices(value) : value);
        }
        return host;
    }

    /** One line per device: "rxe0 fw 1.0 vendor 0x0/0x0, port 1 Ethernet mtu 1024". */
    private static Object devices(Object value) {
        if (!(value instanceof List<?> list)) {
            return null;
        }
        List<String> devices = new ArrayList<>();
        for (Object item : list) {
            if (!(item instanceof Map<?, ?> device)) {
                continue;
            }
            StringBuilder line = new StringBuilder().append(device.get("name")).append(" fw ").append(device.get("fw_ver"))
                    .append(" vendor ").append(device.get("vendor_id")).append('/').append(device.get("vendor_part_id"));
            if (device.get("ports") instanceof List<?> ports) {
                for (Object p : ports) {
                    if (p instanceof Map<?, ?> port) {
                        line.append(", port ").append(port.get("port")).append(' ').append(port.get("link_layer"))
                                .append(" mtu ").append(port.get("active_mtu"));
                    }
                }
            }
            devices.add(line.toString());
        }
        return devices;
    }
}

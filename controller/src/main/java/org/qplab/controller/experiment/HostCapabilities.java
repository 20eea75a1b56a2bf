package org.qplab.controller.experiment;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.qplab.controller.api.Violation;
import org.qplab.engine.SpecViolation;
import org.qplab.engine.nvmeof.NvmeofSpec;

/**
 * What the named hosts of a point can do, as their connected agents said in their hello: for nvmeof, facts key
 * {@code nvmeof} ({@code missing.target|initiator.rdma|tcp|local}, {@code backing_paths}); for verbs, the engine's
 * {@code engine.providers} and {@code engine.verbs_unavailable} (libibverbs not loadable, or an engine built without
 * rdma-core's headers). A point a connected host cannot run is refused at submit, naming the host and the missing
 * piece, before anything is queued; a host whose agent is not connected is not checked here (its agent refuses the
 * same at prepare).
 */
final class HostCapabilities {

    private static final String VERBS = "verbs";

    /** Nobody connected: nothing to check (a matrix checked without a controller's agents). */
    static final HostCapabilities NONE = new HostCapabilities(host -> null);

    /** The hello facts of the agent with this id when it is connected now, else null. */
    private final Function<String, Map<String, Object>> connectedFacts;

    HostCapabilities(Function<String, Map<String, Object>> connectedFacts) {
        this.connectedFacts = connectedFacts;
    }

    /**
     * Adds a violation per host and missing piece (field hosts), and per backing_path the target does not list
     * (field where the matrix sets it), each once. where gives a point's placements: a pair (client =
     * initiator, server = target), or a loopback host (client only) for transport local.
     */
    void check(List<Map<String, Object>> points, Function<Map<String, Object>, List<MatrixHosts.Pair>> where,
               Function<Map<String, Object>, String> backingPathField, List<Violation> violations) {
        Set<Violation> found = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            if (VERBS.equals(point.get("provider"))) {
                for (MatrixHosts.Pair pair : where.apply(point)) {
                    verbs(pair.server() == null ? "host" : "client", pair.client(), found);
                    verbs("server", pair.server(), found);
                }
                continue;
            }
            if (!ProviderKeys.nvmeof(point)) {
                continue;
            }
            String transport = String.valueOf(point.get("transport"));
            String backing = String.valueOf(point.getOrDefault("backing", ProviderKeys.nvmeofDefault("backing")));
            for (MatrixHosts.Pair pair : where.apply(point)) {
                boolean loopback = pair.server() == null;
                String target = loopback ? pair.client() : pair.server();
                if (target != null) {
                    side(loopback ? "host" : "server", target, "target", transport, backing, found);
                    backingPath(point, target, backingPathField, found);
                }
                if (!loopback) {
                    side("client", pair.client(), "initiator", transport, backing, found);
                }
            }
        }
        violations.addAll(found);
    }

    /** A connected host whose engine does not offer the verbs provider, with the engine's reason. */
    private void verbs(String role, String host, Set<Violation> found) {
        Map<String, Object> facts = host == null ? null : connectedFacts.apply(host);
        if (facts == null || !(facts.get("engine") instanceof Map<?, ?> engine)
                || !(engine.get("providers") instanceof List<?> providers) || providers.contains(VERBS)) {
            return;
        }
        Object why = engine.get("verbs_unavailable");
        found.add(new Violation("hosts", role + " " + host + " cannot run provider verbs: "
                + (why != null ? why : "its engine does not offer it (providers " + providers + ")")));
    }

    /**
     * The hello's missing lists are for the default backing, null_blk (the agent's Capabilities.facts): a file or
     * device backing needs no null_blk module, and a local run on one no configfs either.
     */
    private void side(String role, String host, String as, String transport, String backing, Set<Violation> found) {
        Map<String, Object> nvmeof = nvmeofFacts(host);
        if (nvmeof == null) {
            if (connectedFacts.apply(host) != null) {
                found.add(new Violation("hosts", role + " " + host + " cannot be an NVMe-oF " + as + " over "
                        + transport + ": its agent reports no NVMe-oF capabilities (an agent without the nvmeof "
                        + "provider; update it)"));
            }
            return;
        }
        if (nvmeof.get("missing") instanceof Map<?, ?> missing && missing.get(as) instanceof Map<?, ?> byTransport
                && byTransport.get(transport) instanceof List<?> listed) {
            List<String> pieces = listed.stream().map(String::valueOf)
                    .filter(piece -> "null_blk".equals(backing) || !(piece.equals("module null_blk")
                            || (transport.equals("local") && piece.equals("configfs"))))
                    .toList();
            if (!pieces.isEmpty()) {
                found.add(new Violation("hosts", role + " " + host + " cannot be an NVMe-oF " + as + " over "
                        + transport + ": missing " + String.join(", ", pieces)));
            }
        }
    }

    /** A valid point's backing path against what the target lists (an invalid point's spec violations say why). */
    private void backingPath(Map<String, Object> point, String target,
                             Function<Map<String, Object>, String> field, Set<Violation> found) {
        Map<String, Object> nvmeof = nvmeofFacts(target);
        if (point.get("backing_path") == null || nvmeof == null || !NvmeofSpec.check(point).isEmpty()) {
            return;
        }
        List<String> listed = nvmeof.get("backing_paths") instanceof List<?> paths
                ? paths.stream().map(String::valueOf).toList() : List.of();
        SpecViolation refused = NvmeofSpec.of(point).checkBackingPath(target, listed);
        if (refused != null) {
            found.add(new Violation(field.apply(point), refused.message()));
        }
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> nvmeofFacts(String host) {
        Map<String, Object> facts = host == null ? null : connectedFacts.apply(host);
        return facts != null && facts.get("nvmeof") instanceof Map<?, ?> nvmeof ? (Map<String, Object>) nvmeof : null;
    }
}

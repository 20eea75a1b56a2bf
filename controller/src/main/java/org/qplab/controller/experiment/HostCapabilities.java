package org.qplab.controller.experiment;

import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.qplab.controller.api.Violation;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.SpecViolation;
import org.qplab.engine.provider.Providers;

/**
 * What the hosts of a point can do, as their agents said in their hello, judged by the point's provider
 * ({@code ProviderSpec.hostRefusals}): for nvmeof, facts key {@code nvmeof} ({@code missing.target|initiator.rdma|tcp|
 * local}, {@code backing_paths}); for tcp and verbs, the engine's {@code engine.providers} and
 * {@code engine.verbs_unavailable} (libibverbs not loadable, or an engine built without rdma-core's headers), and for
 * verbs the host's {@code rdma_devices} (none, the device or port the point names, xrc, atomics, thread domains,
 * inline size).
 *
 * <ul>
 * <li>A named host whose agent is connected and cannot run a point: refused at submit, naming the host and the
 * missing piece, before anything is queued.</li>
 * <li>A named host whose agent is not connected: a warning, not a refusal (its runs wait for it; its agent refuses
 * at prepare what it cannot run). A host known here (an agent that once connected, or one in the hosts inventory)
 * is offline, with what its last hello says it lacks; a name never seen is unknown.</li>
 * <li>A point on any agent (hosts: loopback): refused when agents are connected and none of them can run it, naming
 * each and why; a warning when only some cannot (the scheduler hands its runs only to agents that can), or when no
 * agent is connected at all.</li>
 * </ul>
 */
final class HostCapabilities {

    /** A host known to this controller whose agent is not connected: its last hello's facts and when it was heard. */
    record Offline(Map<String, Object> facts, OffsetDateTime lastSeen) {
    }

    /** Nobody connected and nothing known: nothing to check (a matrix checked without a controller's agents). */
    static final HostCapabilities NONE = new HostCapabilities(host -> null, null, Map.of());

    /** The hello facts of the agent with this id when it is connected now, else null. */
    private final Function<String, Map<String, Object>> connectedFacts;
    /** Every connected agent's facts by id; null when not known (then points on any agent are not judged). */
    private final Map<String, Map<String, Object>> connected;
    /** Hosts known here whose agents are not connected, by name. */
    private final Map<String, Offline> offline;

    HostCapabilities(Function<String, Map<String, Object>> connectedFacts) {
        this(connectedFacts, null, Map.of());
    }

    /** connected: every connected agent's facts (a snapshot); offline: the known hosts not connected now. */
    HostCapabilities(Function<String, Map<String, Object>> connectedFacts, Map<String, Map<String, Object>> connected,
                     Map<String, Offline> offline) {
        this.connectedFacts = connectedFacts;
        this.connected = connected;
        this.offline = offline;
    }

    /** The ids of the agents connected now; null when not known (a matrix checked without a controller's agents). */
    Collection<String> connectedAgents() {
        return connected == null ? null : connected.keySet();
    }

    /**
     * Adds a violation per host and missing piece (field hosts), and per key a host refuses (backing_path the target
     * does not list, a verbs device's missing feature: field where the matrix sets it), each once, as the point's
     * provider judges the host's facts; and the warnings above. where gives a point's placements: a pair (client,
     * server: for nvmeof the initiator and the target), a loopback host (client only) or any agent (neither).
     */
    void check(List<Map<String, Object>> points, Function<Map<String, Object>, List<MatrixHosts.Pair>> where,
               BiFunction<String, Map<String, Object>, String> field, List<Violation> violations,
               List<Violation> warnings) {
        Set<Violation> found = new LinkedHashSet<>();
        Set<Violation> warned = new LinkedHashSet<>();
        Set<String> notConnected = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            ProviderSpec provider = Providers.of(point);
            for (MatrixHosts.Pair pair : where.apply(point)) {
                if (pair.client() == null && pair.server() == null) {
                    anyAgent(point, provider, field, found, warned);
                    continue;
                }
                for (ProviderSpec.Side side : sides(pair)) {
                    Map<String, Object> facts = connectedFacts.apply(side.host());
                    if (facts == null) {
                        notConnected.add(side.host());
                        Offline known = offline.get(side.host());
                        if (known != null && known.facts() != null) {
                            provider.hostRefusals(point, side, known.facts()).forEach(v -> warned.add(new Violation(
                                    at(v, point, field), "by its last hello, " + v.message())));
                        }
                        continue;
                    }
                    for (SpecViolation v : provider.hostRefusals(point, side, facts)) {
                        found.add(new Violation(at(v, point, field), v.message()));
                    }
                }
            }
        }
        List<Violation> absent = new ArrayList<>();
        if (connected != null) { // a controller's check: hosts it knows are offline, the others unknown
            for (String host : notConnected) {
                Offline known = offline.get(host);
                absent.add(new Violation("hosts", known != null
                        ? "host " + host + " is offline" + (known.lastSeen() != null ? " (its agent was last heard at "
                        + known.lastSeen().truncatedTo(java.time.temporal.ChronoUnit.SECONDS) + ")" : "") + ": its runs wait until it reconnects"
                        : "host " + host + " is unknown: no agent of that name has connected to this controller, and "
                        + "the hosts inventory has none; its runs wait until one connects"));
            }
        }
        violations.addAll(found);
        warnings.addAll(absent);
        warnings.addAll(warned);
    }

    /** Judges a point on any agent against every connected agent. */
    private void anyAgent(Map<String, Object> point, ProviderSpec provider,
                          BiFunction<String, Map<String, Object>, String> field, Set<Violation> found,
                          Set<Violation> warned) {
        if (connected == null) {
            return;
        }
        if (connected.isEmpty()) {
            warned.add(new Violation("hosts", "no agent is connected: the runs wait until one connects"));
            return;
        }
        Map<String, List<SpecViolation>> refusing = new LinkedHashMap<>();
        new java.util.TreeMap<>(connected).forEach((id, facts) -> {
            List<SpecViolation> refused = provider.hostRefusals(point, new ProviderSpec.Side("host", id, true), facts);
            if (!refused.isEmpty()) {
                refusing.put(id, refused);
            }
        });
        if (refusing.isEmpty()) {
            return;
        }
        List<SpecViolation> all = refusing.values().stream().flatMap(List::stream).toList();
        Set<String> fields = new LinkedHashSet<>(all.stream().map(v -> at(v, point, field)).toList());
        String why = String.join("; ", new LinkedHashSet<>(all.stream().map(SpecViolation::message).toList()));
        if (refusing.size() == connected.size()) {
            found.add(new Violation(fields.size() == 1 ? fields.iterator().next() : "hosts",
                    "no connected agent can run it (hosts: any agent): " + why));
        } else {
            warned.add(new Violation(fields.size() == 1 ? fields.iterator().next() : "hosts", "runs on any agent go only to the agents "
                    + "that can run them, not to " + String.join(", ", refusing.keySet()) + ": " + why));
        }
    }

    private static List<ProviderSpec.Side> sides(MatrixHosts.Pair pair) {
        return pair.server() == null ? List.of(new ProviderSpec.Side("host", pair.client(), true))
                : List.of(new ProviderSpec.Side("server", pair.server(), true),
                        new ProviderSpec.Side("client", pair.client(), false));
    }

    private static String at(SpecViolation v, Map<String, Object> point,
                             BiFunction<String, Map<String, Object>, String> field) {
        return v.field().equals("hosts") ? "hosts" : field.apply(v.field(), point);
    }
}

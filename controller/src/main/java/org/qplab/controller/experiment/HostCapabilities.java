package org.qplab.controller.experiment;

import java.util.ArrayList;
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
 * What the named hosts of a point can do, as their connected agents said in their hello, judged by the point's
 * provider ({@code ProviderSpec.hostRefusals}): for nvmeof, facts key
 * {@code nvmeof} ({@code missing.target|initiator.rdma|tcp|local}, {@code backing_paths}); for verbs, the engine's
 * {@code engine.providers} and {@code engine.verbs_unavailable} (libibverbs not loadable, or an engine built without
 * rdma-core's headers). A point a connected host cannot run is refused at submit, naming the host and the missing
 * piece, before anything is queued; a host whose agent is not connected is not checked here (its agent refuses the
 * same at prepare).
 */
final class HostCapabilities {

    /** Nobody connected: nothing to check (a matrix checked without a controller's agents). */
    static final HostCapabilities NONE = new HostCapabilities(host -> null);

    /** The hello facts of the agent with this id when it is connected now, else null. */
    private final Function<String, Map<String, Object>> connectedFacts;

    HostCapabilities(Function<String, Map<String, Object>> connectedFacts) {
        this.connectedFacts = connectedFacts;
    }

    /**
     * Adds a violation per host and missing piece (field hosts), and per key a host refuses (backing_path the target
     * does not list: field where the matrix sets it), each once, as the point's provider judges the host's facts.
     * where gives a point's placements: a pair (client, server: for nvmeof the initiator and the target), or a
     * loopback host (client only).
     */
    void check(List<Map<String, Object>> points, Function<Map<String, Object>, List<MatrixHosts.Pair>> where,
               BiFunction<String, Map<String, Object>, String> field, List<Violation> violations) {
        Set<Violation> found = new LinkedHashSet<>();
        for (Map<String, Object> point : points) {
            ProviderSpec provider = Providers.of(point);
            for (MatrixHosts.Pair pair : where.apply(point)) {
                boolean loopback = pair.server() == null;
                List<ProviderSpec.Side> sides = new ArrayList<>();
                if (loopback) {
                    sides.add(new ProviderSpec.Side("host", pair.client(), true));
                } else {
                    sides.add(new ProviderSpec.Side("server", pair.server(), true));
                    sides.add(new ProviderSpec.Side("client", pair.client(), false));
                }
                for (ProviderSpec.Side side : sides) {
                    Map<String, Object> facts = side.host() == null ? null : connectedFacts.apply(side.host());
                    for (SpecViolation v : provider.hostRefusals(point, side, facts)) {
                        found.add(new Violation(v.field().equals("hosts") ? "hosts" : field.apply(v.field(), point),
                                v.message()));
                    }
                }
            }
        }
        violations.addAll(found);
    }
}

package org.qplab.engine;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a provider says of its runs, so that whoever plans them (the controller at submit, the agent at prepare) asks
 * the provider instead of knowing its name: the keys a run may set with their one default each, the rules between
 * them, what a stored point carries explicitly, where a point runs, how long it may take, what a host must have for
 * it and what one counted cycle is. The native engine's (tcp, verbs: {@link EngineSpec}, from qpb_spec_schema and
 * qpb_spec_check) and nvmeof's ({@code nvmeof.NvmeofProviderSpec}, fio on NVMe-oF) are the two; the registry is
 * {@code provider.Providers}.
 */
public interface ProviderSpec {

    /** The values of a point's {@code provider} key this spec answers for (the engine: tcp and verbs). */
    List<String> providers();

    /** Every key a run of it may set, in the order its refusals list them. */
    List<SpecKey> keys();

    /** Every rule the point breaks, each with its key as the field; empty when it is a valid run. Native for the engine. */
    List<SpecViolation> check(Map<String, Object> point);

    /**
     * The keys a stored point carries at their default where the matrix is silent, so that the run's parameters say
     * what it did (what curves and comparisons group by); the matrix's own values then override them.
     */
    Map<String, Object> explicitDefaults(Map<String, Object> point);

    /** What one counted cycle of a run is. */
    Counts counts();

    /** Why this point runs only on a client/server pair (a refusal's words), or null when one host may run it. */
    String pairOnly(Map<String, Object> point);

    /** Whether the point runs alone on each pair's server host (nvmeof's transport local: fio on the target itself). */
    boolean onServerAlone(Map<String, Object> point);

    /** The most connections one run may open, where the controller limits them (the engine does not), else null. */
    Long connectionLimit(Map<String, Object> point);

    /** How long a pair run's steps may take for this point. */
    Timing timing(Map<String, Object> point);

    /**
     * What keeps a connected host from running the point in one role, from its hello's facts (field "hosts" for a
     * missing piece, or the key whose value the host refuses); empty when it can.
     */
    List<SpecViolation> hostRefusals(Map<String, Object> point, Side side, Map<String, Object> facts);

    /**
     * The keys that set only how long a run is (by count, time or size): two points alike but for these are similar
     * runs, whose counted cycles per second estimate how long one takes. None by default.
     */
    default List<String> lengthKeys() {
        return List.of();
    }

    /**
     * How many cycles a run of the point counts when it ends by count (the engine's iterations), else null (it ends by
     * time, {@link #timing}, or by size).
     */
    default Long plannedCycles(Map<String, Object> point) {
        return null;
    }

    /** What a run counts: messages (the engine's cycles) or I/Os (fio's). */
    enum Counts { MESSAGES, IOS }

    /**
     * A host's part in a run: its role in the refusal's words ("host" for a loopback run, else "client" or
     * "server"), its name, and whether it is the side that serves (a pair's server, or the loopback host).
     */
    record Side(String role, String host, boolean serves) {
    }

    /**
     * How long a run takes: durationKey is the key that sets it (in a refusal's words), planned its planned length
     * (null: the run ends by count or size, not time), margin what the run's end adds to it beyond collecting, and
     * prepare how long its prepare step may take (null: the scheduler's own step limit).
     */
    record Timing(String durationKey, Duration planned, Duration margin, Duration prepare) {
    }
}

package org.qplab.agent.provider;

import java.util.Map;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.RunSession;

/**
 * What the agent runs a benchmark with: the native engine ({@link EngineProvider}: tcp, verbs) or NVMe-oF
 * ({@code nvmeof.NvmeofProvider}: the kernel's target and initiator, fio). The agent knows no provider by name: a run's
 * {@code provider} key picks the one whose {@link #spec()} answers for it (the same spec the controller checks the
 * run's point with), which then opens the run's side as a {@link RunSession}.
 */
public interface Provider {

    /** Its keys, rules and plan ({@code org.qplab.engine.provider.Providers} lists the same specs). */
    ProviderSpec spec();

    /** What it adds to the hello's facts about this host (the engine's devices, nvmeof's capabilities). */
    Map<String, Object> facts();

    /**
     * The spec one side of a run is opened with: the controller's parameters plus what this host decides (a tcp
     * server's bind address, say). Returns a new map.
     */
    Map<String, Object> sideSpec(Map<String, Object> params);

    /** Opens one side of run runId (prepared, not started); a refusal is an EngineException or IllegalStateException. */
    RunSession open(long runId, Map<String, Object> spec);
}

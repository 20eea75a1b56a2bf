package org.qplab.agent.nvmeof;

import java.util.LinkedHashMap;
import java.util.Map;
import org.qplab.agent.provider.Provider;
import org.qplab.engine.ProviderSpec;
import org.qplab.engine.RunSession;
import org.qplab.engine.nvmeof.NvmeofProviderSpec;

/** NVMe-oF: fio against the kernel's target and initiator on this host, one {@link NvmeofSession} per side. */
public final class NvmeofProvider implements Provider {

    private final NvmeofHost host;

    public NvmeofProvider(NvmeofHost host) {
        this.host = host;
    }

    @Override
    public ProviderSpec spec() {
        return NvmeofProviderSpec.NVMEOF;
    }

    /** The hello's "nvmeof" facts: what a target and an initiator need here, and what is missing. */
    @Override
    public Map<String, Object> facts() {
        return Map.of("nvmeof", Capabilities.probe(host).facts());
    }

    @Override
    public Map<String, Object> sideSpec(Map<String, Object> params) {
        return new LinkedHashMap<>(params);
    }

    @Override
    public RunSession open(long runId, Map<String, Object> spec) {
        return NvmeofSession.create(runId, spec, host);
    }
}

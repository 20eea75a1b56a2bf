package org.qplab.agent.nvmeof;

import org.qplab.engine.EngineException;

/**
 * A failed nvmeof step, in words that name the step and what the kernel or the tool said. Its status tells
 * RunExecutor whether trying again may succeed: a kernel or tool failure may pass (QPB_ESYS), a spec or a
 * host that cannot do the run will not (QPB_EINVAL, QPB_EUNSUPPORTED).
 */
public final class NvmeofException extends EngineException {

    static final int EINVAL = 1;
    static final int EUNSUPPORTED = 2;

    private NvmeofException(int status, String message) {
        super(status, message);
    }

    /** A kernel or tool failure: the next try may succeed. */
    static NvmeofException failed(String message) {
        return new NvmeofException(ESYS, message);
    }

    /** The host cannot do this run (a missing module, no root): the same host refuses it again. */
    static NvmeofException refused(String message) {
        return new NvmeofException(EUNSUPPORTED, message);
    }

    /** The spec is not a valid nvmeof run. */
    static NvmeofException invalid(String message) {
        return new NvmeofException(EINVAL, message);
    }
}

package org.qplab.engine;

/** A failure reported by the native engine (the message is the engine's own), or by a provider the agent runs itself. */
public class EngineException extends RuntimeException {

    /** qpb_status codes of failures that may pass (see qpb.h). */
    public static final int ESYS = 3;
    public static final int ERUN = 7;

    private final int status;

    public EngineException(String call, int status, String engineMessage) {
        super(call + " failed (" + statusName(status) + "): " + engineMessage);
        this.status = status;
    }

    /** A failure of a provider the agent runs itself (nvmeof), in its own words; status as for the engine's. */
    protected EngineException(int status, String message) {
        super(message);
        this.status = status;
    }

    /** The qpb_status code (1 = invalid spec, 2 = unsupported, 3 = system call, ...). */
    public int status() {
        return status;
    }

    static String statusName(int status) {
        return switch (status) {
            case 1 -> "QPB_EINVAL";
            case 2 -> "QPB_EUNSUPPORTED";
            case 3 -> "QPB_ESYS";
            case 4 -> "QPB_ESTATE";
            case 5 -> "QPB_ETIMEOUT";
            case 6 -> "QPB_ENOSPC";
            case 7 -> "QPB_ERUN";
            default -> "status " + status;
        };
    }
}

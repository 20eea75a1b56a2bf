package org.qplab.engine;

import jnr.ffi.Pointer;
import jnr.ffi.annotations.Out;

/** The engine's C API (engine/src/main/c/qpb.h), name for name. Use {@link EngineSession} instead. */
public interface QpbLibrary {

    int QPB_OK = 0;
    int QPB_EINVAL = 1;
    int QPB_EUNSUPPORTED = 2;
    int QPB_ETIMEOUT = 5;
    int QPB_ENOSPC = 6;

    Pointer qpb_session_create(String specJson, @Out byte[] err, int errLen);

    int qpb_spec_check(String specJson, @Out byte[] out, int outLen);

    int qpb_spec_schema(@Out byte[] out, int outLen);

    int qpb_local_endpoint(Pointer session, @Out byte[] buf, int bufLen);

    int qpb_connect(Pointer session, String peerEndpointJson);

    int qpb_start(Pointer session);

    int qpb_drain(Pointer session, Pointer out, int max);

    int qpb_drain_intervals(Pointer session, Pointer buf, int bufLen);

    int qpb_wait(Pointer session, int timeoutMs);

    int qpb_stop(Pointer session);

    int qpb_summary(Pointer session, @Out byte[] buf, int bufLen);

    String qpb_last_error(Pointer session);

    void qpb_session_destroy(Pointer session);

    int qpb_engine_info(@Out byte[] buf, int bufLen);

    int qpb_trace_record_layout(@Out byte[] buf, int bufLen);

    int qpb_interval_layout(@Out byte[] buf, int bufLen);

    int qpb_devices(@Out byte[] buf, int bufLen);

    Pointer qpb_cost_begin(String specJson, @Out byte[] err, int errLen);

    int qpb_cost_end(Pointer cost);

    int qpb_cost_json(Pointer cost, @Out byte[] buf, int bufLen);

    void qpb_cost_destroy(Pointer cost);
}

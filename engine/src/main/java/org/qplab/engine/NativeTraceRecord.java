package org.qplab.engine;

import jnr.ffi.Runtime;
import jnr.ffi.Struct;

/** The layout of the C struct qpb_trace_record; drained records are read at these offsets. */
final class NativeTraceRecord extends Struct {

    final Unsigned32 thread = new Unsigned32();
    final Unsigned32 errors = new Unsigned32();
    final Unsigned64 cycle = new Unsigned64();
    final Unsigned64 startNs = new Unsigned64();
    final Unsigned64 endNs = new Unsigned64();
    final Unsigned64 bytes = new Unsigned64();
    final Unsigned64 messages = new Unsigned64();

    NativeTraceRecord(Runtime runtime) {
        super(runtime);
    }
}

package org.qplab.engine;

import jnr.ffi.Runtime;
import jnr.ffi.Struct;

/** The layout of the C struct qpb_interval (qpb.h); drained interval records are read at these offsets. */
final class NativeInterval extends Struct {

    final Unsigned32 size = new Unsigned32();
    final Unsigned32 thread = new Unsigned32();
    final Unsigned64 index = new Unsigned64();
    final Unsigned32 span = new Unsigned32();
    final Unsigned32 buckets = new Unsigned32();
    final Unsigned64 cycles = new Unsigned64();
    final Unsigned64 messages = new Unsigned64();
    final Unsigned64 bytes = new Unsigned64();
    final Unsigned64 errors = new Unsigned64();
    final Unsigned64 minNs = new Unsigned64();
    final Unsigned64 maxNs = new Unsigned64();
    final Unsigned64 firstStartNs = new Unsigned64();
    final Unsigned64 lastEndNs = new Unsigned64();

    NativeInterval(Runtime runtime) {
        super(runtime);
    }

    /** qpb_interval_bucket, the pairs after the header. */
    static final class Bucket extends Struct {
        final Unsigned32 bucket = new Unsigned32();
        final Unsigned32 reserved = new Unsigned32();
        final Unsigned64 count = new Unsigned64();

        Bucket(Runtime runtime) {
            super(runtime);
        }
    }
}

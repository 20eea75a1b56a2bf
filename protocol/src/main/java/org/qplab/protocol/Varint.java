package org.qplab.protocol;

import java.nio.ByteBuffer;

/** Unsigned LEB128: 7 bits a byte, low bits first, the top bit set on every byte but the last. */
public final class Varint {

    /** The most bytes a 64-bit value takes. */
    public static final int MAX_BYTES = 10;

    private Varint() {
    }

    /** Writes v (taken as unsigned; every value here is one that cannot be negative). */
    public static void put(ByteBuffer out, long v) {
        while ((v & ~0x7FL) != 0) {
            out.put((byte) ((v & 0x7F) | 0x80));
            v >>>= 7;
        }
        out.put((byte) v);
    }

    /** Reads a value of at most 63 bits (9 bytes); what: the field, for the message of a malformed one. */
    public static long get(ByteBuffer in, String what) {
        long v = 0;
        for (int shift = 0; shift <= 56; shift += 7) {
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("the frame ends inside " + what);
            }
            byte b = in.get();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw new IllegalArgumentException(what + " does not fit in 63 bits");
    }

    public static int getInt(ByteBuffer in, String what) {
        long v = get(in, what);
        if (v > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(what + " " + v + " is out of range");
        }
        return (int) v;
    }
}

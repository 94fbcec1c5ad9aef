package dev.remora.serializer;

import java.util.Objects;

/**
 * Primitive arrays to and from a message's bytes, in this JVM's byte order, as one memory copy
 * ({@code jdk.internal.misc.Unsafe.copyMemory}) where {@link FieldAccess} has the internal Unsafe.
 *
 * <p>Why: without it, an array under {@link RemoraObjectOutput#SMALL_ARRAY} elements went element by element through
 * a byte-array view {@code VarHandle}, and a longer one through a {@code ByteBuffer} view. Both are fast once C2 has
 * compiled them, but a fresh JVM runs them interpreted for its first thousands of calls, a VarHandle access costing
 * several calls of its own per element, and C2 then compiles each loop twice (on-stack replacement, then the method).
 * A short application's run is mostly that warm-up. One copy costs the same interpreted or compiled.
 *
 * <p>Safety: Unsafe checks no bounds, so both ranges are checked here first, and only arrays of numbers (not
 * {@code boolean[]}, whose bytes a reader must normalise) are copied. Booleans, a reader whose byte order differs
 * from its sender's, and a JVM without the export keep the views.
 */
final class ArrayBytes {
    /** Whether copies go through Unsafe (a trial copy worked); when false, nothing here may be called. */
    static final boolean BULK = ready();

    private ArrayBytes() {
    }

    /** Copies len bytes of a (an array of numbers) from its byte offset off to dst[at, at + len). */
    static void toBytes(Object a, int off, byte[] dst, int at, int len) {
        Objects.checkFromIndexSize(off, len, byteLength(a));
        Objects.checkFromIndexSize(at, len, dst.length);
        InternalUnsafe.copyArrays(a, off, dst, at, len);
    }

    /** Copies src[at, at + len) over the first len bytes of a (an array of numbers). */
    static void fromBytes(byte[] src, int at, Object a, int len) {
        fromBytes(src, at, a, 0, len);
    }

    /** Copies src[at, at + len) over len bytes of a (an array of numbers) from its byte offset off. */
    static void fromBytes(byte[] src, int at, Object a, int off, int len) {
        Objects.checkFromIndexSize(at, len, src.length);
        Objects.checkFromIndexSize(off, len, byteLength(a));
        InternalUnsafe.copyArrays(src, at, a, off, len);
    }

    private static boolean ready() {
        if (FieldAccess.UNSAFE == null) {
            return false;
        }
        try {
            byte[] b = new byte[8];
            InternalUnsafe.copyArrays(new long[] {0x0102030405060708L}, 0, b, 0, 8);
            return b[0] != 0;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    private static int byteLength(Object a) {
        if (a instanceof double[]) {
            return ((double[]) a).length << 3;
        } else if (a instanceof int[]) {
            return ((int[]) a).length << 2;
        } else if (a instanceof long[]) {
            return ((long[]) a).length << 3;
        } else if (a instanceof float[]) {
            return ((float[]) a).length << 2;
        } else if (a instanceof char[]) {
            return ((char[]) a).length << 1;
        } else if (a instanceof short[]) {
            return ((short[]) a).length << 1;
        }
        throw new IllegalArgumentException("not an array of numbers: " + a.getClass().getName());
    }
}

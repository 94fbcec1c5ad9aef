package dev.remora.serializer;

import java.nio.ByteBuffer;

/**
 * The primitive arrays a writer may leave external ({@link RemoraObjectOutput#externalArrays}: byte arrays and
 * arrays of numbers, not {@code boolean[]}), for a transport that receives them apart from their message
 * ({@link RemoraObjectInput#provideArrays}): their component code, element size, a new one, and its elements from
 * bytes. {@link RemoraObjectOutput#copyPiece} is the other direction.
 */
public final class PrimitiveArrays {
    private PrimitiveArrays() {
    }

    /** The component code of such an array ({@code 'I'} for an {@code int[]}, as in a type descriptor), else 0. */
    public static char code(Object a) {
        if (a instanceof byte[]) {
            return 'B';
        } else if (a instanceof int[]) {
            return 'I';
        } else if (a instanceof long[]) {
            return 'J';
        } else if (a instanceof double[]) {
            return 'D';
        } else if (a instanceof float[]) {
            return 'F';
        } else if (a instanceof short[]) {
            return 'S';
        } else if (a instanceof char[]) {
            return 'C';
        }
        return 0;
    }

    /** The element size in bytes of such an array's component code; 0 for any other code ({@code 'Z'} included). */
    public static int size(char code) {
        return code == 'Z' ? 0 : Bytes.size(code);
    }

    /** A new array of {@code length} elements of component code {@code code} (one {@link #size} is not 0 for). */
    public static Object newArray(char code, int length) {
        if (size(code) == 0) {
            throw new IllegalArgumentException("not a code of a byte array or an array of numbers: " + code);
        }
        return Spares.make(code, length);
    }

    /**
     * Copies {@code len} bytes of {@code src} from {@code at} over array {@code a} from its byte offset {@code off},
     * as they lie, in this JVM's byte order: one memory copy where the serializer has the JDK's internal Unsafe.
     */
    public static void read(byte[] src, int at, Object a, int off, int len) {
        if (a instanceof byte[]) {
            System.arraycopy(src, at, (byte[]) a, off, len);
        } else if (ArrayBytes.BULK) {
            ArrayBytes.fromBytes(src, at, a, off, len);
        } else {
            read(ByteBuffer.wrap(src, at, len).order(Bytes.NATIVE), a, off, len);
        }
    }

    /**
     * Copies {@code len} bytes of {@code src} from its position, in its byte order, over array {@code a} from its byte
     * offset {@code off}; the position does not move.
     */
    public static void read(ByteBuffer src, Object a, int off, int len) {
        ByteBuffer b = src.duplicate().order(src.order());
        b.limit(b.position() + len);
        if (a instanceof byte[]) {
            b.get((byte[]) a, off, len);
        } else if (a instanceof int[]) {
            b.asIntBuffer().get((int[]) a, off / 4, len / 4);
        } else if (a instanceof long[]) {
            b.asLongBuffer().get((long[]) a, off / 8, len / 8);
        } else if (a instanceof double[]) {
            b.asDoubleBuffer().get((double[]) a, off / 8, len / 8);
        } else if (a instanceof float[]) {
            b.asFloatBuffer().get((float[]) a, off / 4, len / 4);
        } else if (a instanceof short[]) {
            b.asShortBuffer().get((short[]) a, off / 2, len / 2);
        } else if (a instanceof char[]) {
            b.asCharBuffer().get((char[]) a, off / 2, len / 2);
        } else {
            throw new IllegalArgumentException("not a byte array or an array of numbers: " + a.getClass().getName());
        }
    }
}

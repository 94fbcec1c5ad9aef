package dev.remora.serializer;

import java.lang.reflect.Field;
import jdk.internal.misc.Unsafe;

/**
 * Direct calls of {@code jdk.internal.misc.Unsafe}, for {@link FieldAccess} and the field-loop codec
 * ({@link LoopCodec}). Compiled on its own with {@code --add-exports java.base/jdk.internal.misc} (the rest of the
 * module is compiled with {@code --release 17}, which cannot name a non-exported package), and used only once
 * {@link FieldAccess} has seen java.base export the package to this module: loading it earlier would fail at its
 * first call with an IllegalAccessError.
 */
final class InternalUnsafe {
    private static final Unsafe U = Unsafe.getUnsafe();

    private InternalUnsafe() {
    }

    static Object unsafe() {
        return U;
    }

    static long offset(Field f) {
        return U.objectFieldOffset(f);
    }

    static boolean getBoolean(Object o, long off) {
        return U.getBoolean(o, off);
    }

    static byte getByte(Object o, long off) {
        return U.getByte(o, off);
    }

    static char getChar(Object o, long off) {
        return U.getChar(o, off);
    }

    static short getShort(Object o, long off) {
        return U.getShort(o, off);
    }

    static int getInt(Object o, long off) {
        return U.getInt(o, off);
    }

    static float getFloat(Object o, long off) {
        return U.getFloat(o, off);
    }

    static long getLong(Object o, long off) {
        return U.getLong(o, off);
    }

    static double getDouble(Object o, long off) {
        return U.getDouble(o, off);
    }

    static Object getReference(Object o, long off) {
        return U.getReference(o, off);
    }

    static void putBoolean(Object o, long off, boolean v) {
        U.putBoolean(o, off, v);
    }

    static void putByte(Object o, long off, byte v) {
        U.putByte(o, off, v);
    }

    static void putChar(Object o, long off, char v) {
        U.putChar(o, off, v);
    }

    static void putShort(Object o, long off, short v) {
        U.putShort(o, off, v);
    }

    static void putInt(Object o, long off, int v) {
        U.putInt(o, off, v);
    }

    static void putFloat(Object o, long off, float v) {
        U.putFloat(o, off, v);
    }

    static void putLong(Object o, long off, long v) {
        U.putLong(o, off, v);
    }

    static void putDouble(Object o, long off, double v) {
        U.putDouble(o, off, v);
    }

    static void putReference(Object o, long off, Object v) {
        U.putReference(o, off, v);
    }

    /**
     * Copies {@code bytes} bytes from {@code src} at byte offset {@code srcOff} (from the start of its elements) to
     * {@code dst} at byte offset {@code dstOff}: both primitive arrays. The caller has checked both ranges
     * ({@link ArrayBytes}); Unsafe checks nothing.
     */
    static void copyArrays(Object src, long srcOff, Object dst, long dstOff, long bytes) {
        U.copyMemory(src, ArrayBase.of(src) + srcOff, dst, ArrayBase.of(dst) + dstOff, bytes);
    }

    /**
     * Where the elements of each kind of array start, read once: Unsafe's {@code ARRAY_*_BASE_OFFSET}
     * and {@code arrayBaseOffset} are int on JDK 17 and long on later JDKs, so this class, compiled against one,
     * would not link on the other if it named them. A holder of its own, so that field access never depends on it.
     */
    private static final class ArrayBase {
        static final long BYTES = read("ARRAY_BYTE_BASE_OFFSET");
        static final long DOUBLES = read("ARRAY_DOUBLE_BASE_OFFSET");
        static final long INTS = read("ARRAY_INT_BASE_OFFSET");
        static final long LONGS = read("ARRAY_LONG_BASE_OFFSET");
        static final long FLOATS = read("ARRAY_FLOAT_BASE_OFFSET");
        static final long CHARS = read("ARRAY_CHAR_BASE_OFFSET");
        static final long SHORTS = read("ARRAY_SHORT_BASE_OFFSET");

        /** The constant's value, read where it lies: JDK 25's Field.get would spin method handles for it. */
        private static long read(String field) {
            try {
                Field f = Unsafe.class.getField(field);
                Object base = U.staticFieldBase(f);
                long at = U.staticFieldOffset(f);
                return f.getType() == long.class ? U.getLong(base, at) : U.getInt(base, at);
            } catch (NoSuchFieldException e) {
                throw new IllegalStateException(e);
            }
        }

        static long of(Object a) {
            if (a instanceof byte[]) {
                return BYTES;
            } else if (a instanceof double[]) {
                return DOUBLES;
            } else if (a instanceof int[]) {
                return INTS;
            } else if (a instanceof long[]) {
                return LONGS;
            } else if (a instanceof float[]) {
                return FLOATS;
            } else if (a instanceof char[]) {
                return CHARS;
            } else if (a instanceof short[]) {
                return SHORTS;
            }
            throw new IllegalArgumentException("not an array of bytes or numbers: " + a.getClass().getName());
        }
    }
}

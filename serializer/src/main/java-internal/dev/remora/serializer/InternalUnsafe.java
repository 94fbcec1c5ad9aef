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
}

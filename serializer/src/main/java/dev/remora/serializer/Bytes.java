package dev.remora.serializer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Byte-array views used by the streams and by generated codecs. Writers always use the {@code N*} (native order)
 * views: primitives go out in the sender's byte order. A reader picks {@code N*} when the sender's order equals its
 * own and {@code S*} (swapped) otherwise, so only a receiver whose order differs pays for conversion
 * (receiver-makes-right, "Manta" section 2.3). The fields are static finals, so the JIT folds them to plain loads
 * and stores.
 */
final class Bytes {
    static final ByteOrder NATIVE = ByteOrder.nativeOrder();
    static final ByteOrder SWAPPED = NATIVE == ByteOrder.BIG_ENDIAN ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;

    static final VarHandle NS = MethodHandles.byteArrayViewVarHandle(short[].class, NATIVE);
    static final VarHandle NC = MethodHandles.byteArrayViewVarHandle(char[].class, NATIVE);
    static final VarHandle NI = MethodHandles.byteArrayViewVarHandle(int[].class, NATIVE);
    static final VarHandle NJ = MethodHandles.byteArrayViewVarHandle(long[].class, NATIVE);
    static final VarHandle NF = MethodHandles.byteArrayViewVarHandle(float[].class, NATIVE);
    static final VarHandle ND = MethodHandles.byteArrayViewVarHandle(double[].class, NATIVE);

    static final VarHandle SS = MethodHandles.byteArrayViewVarHandle(short[].class, SWAPPED);
    static final VarHandle SC = MethodHandles.byteArrayViewVarHandle(char[].class, SWAPPED);
    static final VarHandle SI = MethodHandles.byteArrayViewVarHandle(int[].class, SWAPPED);
    static final VarHandle SJ = MethodHandles.byteArrayViewVarHandle(long[].class, SWAPPED);
    static final VarHandle SF = MethodHandles.byteArrayViewVarHandle(float[].class, SWAPPED);
    static final VarHandle SD = MethodHandles.byteArrayViewVarHandle(double[].class, SWAPPED);

    /** Big-endian views for descriptors, whose encoding does not depend on the sender. */
    static final VarHandle BE_J = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    static final VarHandle BE_I = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);

    private Bytes() {
    }

    /** Size in bytes of a primitive JDK type code (B C D F I J S Z). */
    static int size(char code) {
        switch (code) {
            case 'B': case 'Z': return 1;
            case 'C': case 'S': return 2;
            case 'I': case 'F': return 4;
            case 'J': case 'D': return 8;
            default: return 0;
        }
    }
}

package dev.remora.rmi.transport;

import java.nio.Buffer;
import java.nio.MappedByteBuffer;
import jdk.internal.misc.Unsafe;

/**
 * Atomic native-order ints in a mapped file, by address through {@code jdk.internal.misc.Unsafe}. A
 * {@code byteBufferViewVarHandle} does the same, but on JDK 22+ its first use spun 23 {@code LambdaForm} classes (it is
 * built on memory segments), in every JVM, for {@link HostSpinners}' handful of ints. Compiled on its own with
 * {@code --add-exports java.base/jdk.internal.misc} (src/main/java-internal) and used only once
 * {@link HostSpinners#UNSAFE} has seen java.base export the package to this module, as the agent does at activation
 * unless {@code remora.serializer.unsafe=false}. Offsets are the caller's, checked against the mapping's size there.
 */
final class MappedInts {
    private static final Unsafe U = Unsafe.getUnsafe();
    private static final long ADDRESS = U.objectFieldOffset(Buffer.class, "address");

    private final Object mapping; // kept: the mapping lives as long as its buffer or segment
    private final long base;

    /** {@code map}'s ints, from byte {@code 0}. */
    MappedInts(MappedByteBuffer map) {
        this(map, U.getLong(map, ADDRESS));
    }

    /** The ints at {@code base}, a mapping that lives as long as {@code mapping} (a buffer or a memory segment). */
    MappedInts(Object mapping, long base) {
        this.mapping = mapping;
        this.base = base;
        if (base == 0) {
            throw new IllegalStateException("mapping without an address");
        }
    }

    int getVolatile(int off) {
        return U.getIntVolatile(null, base + off);
    }

    void setVolatile(int off, int v) {
        U.putIntVolatile(null, base + off, v);
    }

    boolean compareAndSet(int off, int expected, int v) {
        return U.compareAndSetInt(null, base + off, expected, v);
    }

    int getAndAdd(int off, int delta) {
        return U.getAndAddInt(null, base + off, delta);
    }
}

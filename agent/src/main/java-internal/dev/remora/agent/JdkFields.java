package dev.remora.agent;

import java.lang.reflect.Field;
import jdk.internal.misc.Unsafe;

/**
 * Reads of JDK fields by offset, through {@code jdk.internal.misc.Unsafe}: on JDK 18 and later a reflective
 * {@code Method.invoke} or {@code Field.get} builds its accessor from method handles at its first use, which at a
 * JVM's exit spun a class and took a few ms ({@link ExitRelease}). Compiled on its own with {@code --add-exports
 * java.base/jdk.internal.misc} (src/main/java-internal); used only once java.base exports that package to this
 * module, as the agent does at activation unless {@code remora.serializer.unsafe=false}.
 */
final class JdkFields {
    private static final Unsafe U = Unsafe.getUnsafe();

    private JdkFields() {
    }

    /** {@code f}'s offset in its objects (an instance field). */
    static long offset(Field f) {
        return U.objectFieldOffset(f);
    }

    /** {@code f}'s offset in {@link #staticBase} (a static field). */
    static long staticOffset(Field f) {
        return U.staticFieldOffset(f);
    }

    /** Where {@code f}, a static field, is stored. */
    static Object staticBase(Field f) {
        return U.staticFieldBase(f);
    }

    /** The reference at {@code offset} in {@code o}, read as a volatile read would. */
    static Object read(Object o, long offset) {
        return U.getReferenceVolatile(o, offset);
    }
}

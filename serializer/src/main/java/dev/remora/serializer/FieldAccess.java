package dev.remora.serializer;

import java.lang.reflect.Field;

/**
 * How generated codecs reach fields when they can do without method handles: {@code jdk.internal.misc.Unsafe}, the
 * JDK's own serialization's way ({@code ObjectStreamClass.FieldReflector}), usable only when java.base exports
 * {@code jdk.internal.misc} to this module. Remora's agent exports it at activation ({@code remora.serializer.unsafe},
 * default true); without that export, or with {@code -Dremora.serializer.unsafe=false}, codecs use method handles.
 *
 * <p>Why: a method handle invoked more than 127 times from code the JIT has not compiled yet is "customized", which
 * spins a class per handle; a codec held one getter and one setter handle per field, so a 32-field class spun 64
 * classes within its first few hundred calls. With the JVM's customization turned off
 * ({@code -Djava.lang.invoke.MethodHandle.CUSTOMIZE_THRESHOLD=-1}) the compare's cold figure (lookup and the first
 * 2000 calls, both JVMs on one CPU) went from 1130-1220 to 960-1080 ms, plain RMI 850-890 ms. Unsafe reads and
 * writes a field at a fixed offset: no handle, no class spun, no per-field linkage; C2 compiles each to a plain load
 * or store, as it did the constant handles.
 *
 * <p>Safety: offsets come from the declared {@link Field} of the very class a codec is made for, and a codec is only
 * used on instances of that class (the object's own class or, for superclass slots, a subclass); every reference read
 * from a stream is checked against its field's type before it is stored ({@link Slot#castFailed}), as the JDK does.
 */
final class FieldAccess {
    /** The internal Unsafe, or null: codecs then use method handles. */
    static final Object UNSAFE;
    /** Its class's internal name, for generated code. */
    static final String UNSAFE_CLASS = "jdk/internal/misc/Unsafe";

    static {
        Object u = null;
        try {
            if (!"false".equals(System.getProperty("remora.serializer.unsafe"))
                    && Object.class.getModule().isExported("jdk.internal.misc", FieldAccess.class.getModule())) {
                u = InternalUnsafe.unsafe();
            }
        } catch (RuntimeException | LinkageError e) {
            u = null;
        }
        UNSAFE = u;
    }

    private FieldAccess() {
    }

    /** The offset of an instance field, or -1 when there is no Unsafe. */
    static long offset(Field f) {
        return UNSAFE == null ? -1 : InternalUnsafe.offset(f);
    }
}

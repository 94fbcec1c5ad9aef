package dev.remora.serializer;

import java.io.OptionalDataException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;

/**
 * The JDK's supported hooks for serialization libraries, in one place.
 *
 * <p>{@code sun.reflect.ReflectionFactory} (module jdk.unsupported, exported to everyone) gives what
 * {@code ObjectStreamClass} uses internally: the serialization constructor (first non-serializable superclass's
 * no-arg constructor), and direct method handles for private {@code writeObject}, {@code readObject},
 * {@code readObjectNoData}, {@code writeReplace}, {@code readResolve} of any class, even in java.base, without
 * {@code --add-opens}. JDK 24 added {@code defaultWriteObjectForSerialization}/{@code defaultReadObjectForSerialization},
 * which copy fields of any class through {@code putFields}/{@code readFields}; they are looked up reflectively so
 * the module still compiles for 17.
 *
 * <p>Fields of classes whose package is not open to us (JDK classes) are reached through {@code sun.misc.Unsafe}
 * field offsets on JDK 17 to 23 only: from JDK 24 its memory-access methods print a warning (JEP 498), so there the
 * JDK 24 default-field handles are used instead.
 */
final class JdkSupport {
    static final int FEATURE = Runtime.version().feature();
    private static final sun.reflect.ReflectionFactory RF = sun.reflect.ReflectionFactory.getReflectionFactory();
    private static final MethodHandle DEFAULT_WRITE; // (RF, Class) MethodHandle, JDK 24+
    private static final MethodHandle DEFAULT_READ;
    static final sun.misc.Unsafe UNSAFE;
    /**
     * For {@code allocateInstance} only (not a memory-access method: no JEP 498 warning on 24+), used when the first
     * non-serializable superclass is Object, whose constructor does nothing: the same object as the serialization
     * constructor makes, without a reflective call.
     */
    static final sun.misc.Unsafe ALLOC;

    static {
        MethodHandle w = null;
        MethodHandle r = null;
        if (FEATURE >= 24) {
            try {
                MethodHandles.Lookup lk = MethodHandles.publicLookup();
                MethodType t = MethodType.methodType(MethodHandle.class, Class.class);
                w = lk.findVirtual(sun.reflect.ReflectionFactory.class, "defaultWriteObjectForSerialization", t);
                r = lk.findVirtual(sun.reflect.ReflectionFactory.class, "defaultReadObjectForSerialization", t);
            } catch (ReflectiveOperationException | RuntimeException e) {
                w = null;
                r = null;
            }
        }
        DEFAULT_WRITE = w;
        DEFAULT_READ = r;
        sun.misc.Unsafe u = null;
        try {
            Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            u = (sun.misc.Unsafe) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            u = null;
        }
        ALLOC = u;
        UNSAFE = FEATURE < 24 ? u : null;
    }

    private JdkSupport() {
    }

    static Constructor<?> serializationConstructor(Class<?> cl) {
        return RF.newConstructorForSerialization(cl);
    }

    static Constructor<?> externalizationConstructor(Class<?> cl) {
        return RF.newConstructorForExternalization(cl);
    }

    static MethodHandle writeObject(Class<?> cl) {
        return RF.writeObjectForSerialization(cl);
    }

    static MethodHandle readObject(Class<?> cl) {
        return RF.readObjectForSerialization(cl);
    }

    /**
     * The JDK's own lookup here looks for {@code readObjectNoData(ObjectInputStream)} and so never finds the method
     * (checked on 17 and 25): look it up as the specification defines it, private, no arguments.
     */
    static MethodHandle readObjectNoData(Class<?> cl) {
        MethodHandle h = RF.readObjectNoDataForSerialization(cl);
        if (h != null) {
            return h;
        }
        try {
            java.lang.reflect.Method m = cl.getDeclaredMethod("readObjectNoData");
            int mod = m.getModifiers();
            if (m.getReturnType() != void.class || java.lang.reflect.Modifier.isStatic(mod)
                    || !java.lang.reflect.Modifier.isPrivate(mod)) {
                return null;
            }
            return MethodHandles.privateLookupIn(cl, MethodHandles.lookup()).unreflect(m);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    static MethodHandle writeReplace(Class<?> cl) {
        return RF.writeReplaceForSerialization(cl);
    }

    static MethodHandle readResolve(Class<?> cl) {
        return RF.readResolveForSerialization(cl);
    }

    /**
     * What the JDK's ObjectStreamClass finds wrong in {@code cl}'s serialPersistentFields (two fields of one name),
     * or null. It keeps such a class's descriptor without fields and fails every write and read of it.
     */
    static String serialFieldsProblem(Class<?> cl) {
        java.io.ObjectStreamField[] declared;
        try {
            java.lang.reflect.Field f = cl.getDeclaredField("serialPersistentFields");
            int m = f.getModifiers();
            if (!java.lang.reflect.Modifier.isStatic(m) || !java.lang.reflect.Modifier.isPrivate(m)
                    || !java.lang.reflect.Modifier.isFinal(m) || f.getType() != java.io.ObjectStreamField[].class) {
                return null;
            }
            f.setAccessible(true);
            declared = (java.io.ObjectStreamField[]) f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // none, or not ours to read (a JDK class): the JDK's own classes are well formed
        }
        if (declared == null) {
            return null;
        }
        java.util.Set<String> names = new java.util.HashSet<>();
        for (java.io.ObjectStreamField d : declared) {
            if (d != null && !names.add(d.getName())) {
                return "multiple serializable fields named " + d.getName();
            }
        }
        return null;
    }

    static OptionalDataException optionalDataEof() {
        return RF.newOptionalDataExceptionForSerialization(true);
    }

    /** JDK 24+: handle (Object, ObjectOutputStream)void writing cl's default fields via putFields, or null. */
    static MethodHandle defaultWriteObject(Class<?> cl) {
        return invoke(DEFAULT_WRITE, cl);
    }

    static MethodHandle defaultReadObject(Class<?> cl) {
        return invoke(DEFAULT_READ, cl);
    }

    private static MethodHandle invoke(MethodHandle h, Class<?> cl) {
        if (h == null) {
            return null;
        }
        try {
            return (MethodHandle) h.invoke(RF, cl);
        } catch (Throwable t) {
            return null;
        }
    }

    /** Throws a checked exception where the signature (written for an older JDK) cannot declare it. */
    @SuppressWarnings("unchecked")
    static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t;
    }
}

package dev.remora.serializer;

import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;

/**
 * One serializable class of a hierarchy, as the local JVM sees it: its serialVersionUID, its serializable fields in
 * JDK order (primitives first, each group by name, {@code serialPersistentFields} honoured), its private
 * writeObject/readObject/readObjectNoData, and how its fields are reached (see {@link CodecGenerator}).
 */
final class Slot {
    static final int ACCESS_LOOKUP = 1;
    static final int ACCESS_UNSAFE = 2;
    static final int ACCESS_JDK_DEFAULT = 3;
    static final int ACCESS_NONE = 4;

    final Class<?> cl;
    final long svuid;
    final char[] codes;
    final String[] names;
    final Class<?>[] types;
    final int primBytes;
    final MethodHandle writeObject;
    final MethodHandle readObject;
    final MethodHandle readObjectNoData;
    /** Boxed accessors for the generic paths (putFields/readFields, evolved layouts): {@link #getters()}. */
    private volatile MethodHandle[] get;
    private volatile MethodHandle[] set;
    /** The declared fields behind the accessors until they are made (Unsafe codec slots), else null. */
    private Field[] realFields;
    /** The class's private lookup, or null (then sun.misc.Unsafe, JDK classes before 24). */
    private MethodHandles.Lookup lookup;
    /**
     * Copies the fields between object and stream, or null (the boxed generic path): with the internal Unsafe
     * first a {@link LoopCodec}, then the generated codec it asks for; without it, a codec on method handles.
     */
    volatile FieldCodec codec;
    /** JDK 24+ handles (Object, ObjectOutputStream)void / (Object, ObjectInputStream)void when fields are unreachable. */
    final MethodHandle jdkDefaultWrite;
    final MethodHandle jdkDefaultRead;
    final int access;
    final String accessProblem;
    /**
     * A field declared in serialPersistentFields with no matching field: default serialization of this class fails
     * with the JDK's "unmatched serializable field(s) declared" (putFields/writeFields may still write it).
     */
    boolean unmatched;
    /**
     * Which fields serialPersistentFields declares unshared (written with writeUnshared, read with readUnshared, as
     * the JDK's default serialization does), or null when none is.
     */
    final boolean[] unshared;

    Slot(Class<?> cl, boolean generate) {
        this.cl = cl;
        ObjectStreamClass osc = ObjectStreamClass.lookup(cl);
        this.svuid = osc.getSerialVersionUID();
        ObjectStreamField[] f = osc.getFields();
        int n = f.length;
        codes = new char[n];
        names = new String[n];
        types = new Class<?>[n];
        int pb = 0;
        boolean[] un = null;
        for (int i = 0; i < n; i++) {
            codes[i] = f[i].getTypeCode();
            names[i] = f[i].getName();
            types[i] = f[i].getType();
            pb += Bytes.size(codes[i]);
            if (f[i].isUnshared()) {
                if (un == null) {
                    un = new boolean[n];
                }
                un[i] = true;
            }
        }
        primBytes = pb;
        unshared = un;
        writeObject = adapt(JdkSupport.writeObject(cl), java.io.ObjectOutputStream.class);
        readObject = adapt(JdkSupport.readObject(cl), java.io.ObjectInputStream.class);
        readObjectNoData = adapt(JdkSupport.readObjectNoData(cl), null);

        MethodHandle[] g = new MethodHandle[n];
        MethodHandle[] s = new MethodHandle[n];
        Field[] real = new Field[n];
        int acc = ACCESS_NONE;
        String problem = null;
        try {
            acc = reach(real);
        } catch (Throwable t) {
            problem = t.toString();
        }
        FieldCodec c = null;
        boolean codecFailed = false;
        boolean generated = false;
        boolean lazy = false;
        if (acc != ACCESS_NONE) {
            if (generate && un == null) { // unshared fields (serialPersistentFields) take the generic path
                try {
                    c = unsafeCodec(real);
                    lazy = c != null; // the boxed accessors only for the rarer paths: made at their first use
                } catch (Throwable t) {
                    codecFailed = true; // the boxed generic path below still works
                }
            }
            if (!lazy) {
                try {
                    typedAccessors(g, s, real);
                    if (generate && un == null && !codecFailed) {
                        try {
                            c = CodecGenerator.generate(cl.getName(), codes, g, s);
                            generated = true;
                        } catch (Throwable t) {
                            codecFailed = true;
                        }
                    }
                    box(g, s);
                } catch (Throwable t) {
                    acc = ACCESS_NONE;
                    problem = t.toString();
                }
            }
        }
        MethodHandle dw = null;
        MethodHandle dr = null;
        if (acc == ACCESS_NONE) {
            dw = adapt(JdkSupport.defaultWriteObject(cl), java.io.ObjectOutputStream.class);
            dr = adapt(JdkSupport.defaultReadObject(cl), java.io.ObjectInputStream.class);
            if (dw != null && dr != null) {
                acc = ACCESS_JDK_DEFAULT;
            } else if (n == 0) {
                acc = ACCESS_LOOKUP; // nothing to reach
            }
            g = null;
            s = null;
        }
        if (acc == ACCESS_NONE && problem == null) {
            problem = "fields of " + cl.getName() + " are not accessible";
        }
        SerializerStats.slot(acc, generated, codecFailed);
        if (lazy) {
            realFields = real;
        } else {
            get = g;
            set = s;
        }
        codec = c;
        jdkDefaultWrite = dw;
        jdkDefaultRead = dr;
        access = acc;
        accessProblem = problem;
    }

    /**
     * The boxed getters ({@code (Object)Object}) for the generic paths (putFields, evolved layouts, resets), made at
     * their first use when the slot has an Unsafe codec; null when the fields cannot be reached that way.
     */
    MethodHandle[] getters() {
        MethodHandle[] g = get;
        return g != null || realFields == null ? g : makeAccessors() ? get : null;
    }

    /** The boxed setters ({@code (Object, Object)void}), as {@link #getters()}. */
    MethodHandle[] setters() {
        MethodHandle[] s = set;
        return s != null || realFields == null ? s : makeAccessors() ? set : null;
    }

    private synchronized boolean makeAccessors() {
        if (set != null) {
            return true;
        }
        int n = codes.length;
        MethodHandle[] g = new MethodHandle[n];
        MethodHandle[] s = new MethodHandle[n];
        try {
            typedAccessors(g, s, realFields);
            box(g, s);
        } catch (Throwable t) {
            realFields = null; // the generic paths then fail naming the class, as for unreachable fields
            return false;
        }
        get = g;
        set = s;
        return true;
    }

    private static void box(MethodHandle[] g, MethodHandle[] s) {
        for (int i = 0; i < g.length; i++) {
            g[i] = g[i].asType(MethodType.methodType(Object.class, Object.class));
            s[i] = s[i].asType(MethodType.methodType(void.class, Object.class, Object.class));
        }
    }

    /** (T, Stream)void or (T)void as (Object, Stream)void, or (Object)void when stream is null. */
    static MethodHandle adapt(MethodHandle h, Class<?> stream) {
        if (h == null) {
            return null;
        }
        if (stream == null) {
            if (h.type().parameterCount() == 2) {
                h = MethodHandles.insertArguments(h.asType(MethodType.methodType(void.class, Object.class,
                        h.type().parameterType(1))), 1, (Object) null);
            }
            return h.asType(MethodType.methodType(void.class, Object.class));
        }
        return h.asType(MethodType.methodType(void.class, Object.class, stream));
    }

    boolean hasFields() {
        return codes.length > 0;
    }

    /**
     * Finds, in {@code real}, the declared field behind each serializable field (null: none) and how they can be
     * reached: the class's private lookup, sun.misc.Unsafe (JDK classes before 24), or not at all.
     */
    private int reach(Field[] real) {
        int n = codes.length;
        if (n == 0) {
            return ACCESS_LOOKUP;
        }
        MethodHandles.Lookup lk = null;
        try {
            lk = MethodHandles.privateLookupIn(cl, MethodHandles.lookup());
        } catch (IllegalAccessException | RuntimeException e) {
            lk = null;
        }
        lookup = lk;
        boolean any = false;
        for (int i = 0; i < n; i++) {
            real[i] = realField(names[i], types[i]);
            any |= real[i] != null;
        }
        if (lk == null && JdkSupport.UNSAFE == null && any) {
            return ACCESS_NONE;
        }
        return lk != null || !any ? ACCESS_LOOKUP : ACCESS_UNSAFE;
    }

    /** Fills typed accessors for the fields {@link #reach} found. */
    private void typedAccessors(MethodHandle[] g, MethodHandle[] s, Field[] real) throws ReflectiveOperationException {
        int n = codes.length;
        MethodHandles.Lookup lk = lookup;
        sun.misc.Unsafe u = JdkSupport.UNSAFE;
        for (int i = 0; i < n; i++) {
            Class<?> t = codes[i] == 'L' || codes[i] == '[' ? Object.class : types[i];
            Field fld = real[i];
            if (fld == null) {
                // declared in serialPersistentFields without a field: default serialization fails, as in the JDK;
                // for putFields/readFields the accessors write the default and drop what is read
                unmatched = true;
                g[i] = MethodHandles.dropArguments(MethodHandles.zero(t), 0, Object.class);
                s[i] = MethodHandles.empty(MethodType.methodType(void.class, Object.class, t));
                continue;
            }
            MethodHandle getter;
            MethodHandle setter;
            if (lk != null) {
                getter = lk.unreflectGetter(fld);
                if (Modifier.isFinal(fld.getModifiers())) {
                    fld.setAccessible(true);
                    setter = lk.unreflectSetter(fld);
                } else {
                    setter = lk.unreflectSetter(fld);
                }
            } else {
                long off = u.objectFieldOffset(fld);
                getter = unsafeGetter(u, fld.getType(), off);
                setter = unsafeSetter(u, fld.getType(), off);
            }
            g[i] = getter.asType(MethodType.methodType(t, Object.class));
            s[i] = setter.asType(MethodType.methodType(void.class, Object.class, t));
            if (!fld.getType().isPrimitive() && fld.getType() != Object.class) {
                // a value of another class (an evolved field's type): the JDK's message, naming field and classes
                s[i] = MethodHandles.catchException(s[i], ClassCastException.class, MethodHandles.insertArguments(
                        CastFailed.HANDLE, 0, fld.getDeclaringClass().getName(), fld.getName(),
                        fld.getType().getName()));
            }
        }
    }

    private Field realField(String name, Class<?> type) {
        try {
            Field f = cl.getDeclaredField(name);
            int m = f.getModifiers();
            if (Modifier.isStatic(m)) {
                return null;
            }
            if (type.isPrimitive() ? f.getType() != type : f.getType().isPrimitive()) {
                return null;
            }
            return f;
        } catch (NoSuchFieldException e) {
            return null;
        }
    }

    private static MethodHandle unsafeGetter(sun.misc.Unsafe u, Class<?> t, long off)
            throws ReflectiveOperationException {
        String kind = t.isPrimitive() ? Character.toUpperCase(t.getName().charAt(0)) + t.getName().substring(1)
                : "Object";
        Class<?> rt = t.isPrimitive() ? t : Object.class;
        MethodHandle h = MethodHandles.lookup().findVirtual(sun.misc.Unsafe.class, "get" + kind,
                MethodType.methodType(rt, Object.class, long.class));
        return MethodHandles.insertArguments(h.bindTo(u), 1, off);
    }

    /**
     * A codec on {@link FieldAccess}'s Unsafe, when it is there and every field of the slot is a real field; null
     * otherwise (the caller then makes one on method handles). It is the field loop until the slot has been used
     * {@link #CODEGEN_AFTER} times, then the generated codec.
     */
    private FieldCodec unsafeCodec(Field[] real) throws ReflectiveOperationException {
        if (FieldAccess.UNSAFE == null) {
            return null;
        }
        int n = real.length;
        long[] offsets = new long[n];
        Class<?>[] checks = new Class<?>[n];
        for (int i = 0; i < n; i++) {
            if (real[i] == null) {
                return null;
            }
            offsets[i] = FieldAccess.offset(real[i]);
            Class<?> t = real[i].getType();
            checks[i] = t.isPrimitive() || t == Object.class ? null : t;
        }
        return CODEGEN_AFTER > 0 ? new LoopCodec(this, offsets, checks, CODEGEN_AFTER) : generated(offsets, checks);
    }

    /** The generated Unsafe codec of this slot, counted. */
    private FieldCodec generated(long[] offsets, Class<?>[] checks) throws ReflectiveOperationException {
        FieldCodec c = CodecGenerator.generateUnsafe(cl.getName(), codes, offsets, checks, cl.getName(), names);
        SerializerStats.codec(true, false);
        return c;
    }

    /**
     * Objects of a slot (written and read) copied by the field loop before its codec is generated:
     * {@code remora.serializer.codegen.after}, 0 to generate at once.
     */
    static final int CODEGEN_AFTER = codegenAfter();

    private static int codegenAfter() {
        try {
            return Math.max(0, Integer.parseInt(System.getProperty("remora.serializer.codegen.after", "1000")));
        } catch (NumberFormatException e) {
            return 1000;
        }
    }

    /** Called once by this slot's {@link LoopCodec}: replaces it with the generated codec, or keeps it on failure. */
    synchronized void generateCodec(long[] offsets, Class<?>[] checks) {
        if (!(codec instanceof LoopCodec)) {
            return; // two threads counted down to zero together
        }
        try {
            codec = generated(offsets, checks);
        } catch (Throwable t) {
            SerializerStats.codec(false, true); // the field loop goes on: it is as correct, only slower
        }
    }

    /**
     * Called by Unsafe codecs before they store a reference read from a stream: throws the JDK's ClassCastException
     * when {@code val} is not of the field's type (an evolved field, or a hostile stream planting another type).
     */
    static void checkAssignable(Object val, Class<?> type, Object obj, String owner, String field) {
        if (val != null && !type.isInstance(val)) {
            CastFailed.fail(owner, field, type.getName(), null, obj, val);
        }
    }

    /** Throws the ClassCastException the JDK's field reflector throws for a value of the wrong class. */
    static final class CastFailed {
        static final MethodHandle HANDLE;

        static {
            try {
                HANDLE = MethodHandles.lookup().findStatic(CastFailed.class, "fail", MethodType.methodType(void.class,
                        String.class, String.class, String.class, ClassCastException.class, Object.class,
                        Object.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private CastFailed() {
        }

        static void fail(String owner, String field, String type, ClassCastException e, Object obj, Object val) {
            throw new ClassCastException("cannot assign instance of " + (val == null ? "null" : val.getClass()
                    .getName()) + " to field " + owner + "." + field + " of type " + type + " in instance of "
                    + obj.getClass().getName());
        }
    }

    private static MethodHandle unsafeSetter(sun.misc.Unsafe u, Class<?> t, long off)
            throws ReflectiveOperationException {
        String kind = t.isPrimitive() ? Character.toUpperCase(t.getName().charAt(0)) + t.getName().substring(1)
                : "Object";
        Class<?> vt = t.isPrimitive() ? t : Object.class;
        MethodHandle h = MethodHandles.lookup().findVirtual(sun.misc.Unsafe.class, "put" + kind,
                MethodType.methodType(void.class, Object.class, long.class, vt));
        h = MethodHandles.insertArguments(h.bindTo(u), 1, off);
        if (!t.isPrimitive()) {
            // Unsafe does not check types: a checked cast keeps a hostile stream from planting a wrong type
            MethodHandle cast = MethodHandles.identity(t).asType(MethodType.methodType(t, Object.class))
                    .asType(MethodType.methodType(Object.class, Object.class));
            h = MethodHandles.filterArguments(h, 1, cast);
        }
        return h;
    }
}

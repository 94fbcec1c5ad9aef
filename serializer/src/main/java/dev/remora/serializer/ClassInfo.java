package dev.remora.serializer;

import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Constructor;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the streams need to know about one local class, computed once per class (a {@link ClassValue}) and
 * shared by all connections: its kind, its serializable slots (superclass first), instantiation, replace/resolve
 * hooks and the descriptor bytes sent to a peer the first time a connection meets the class.
 */
final class ClassInfo {
    static final byte PLAIN = 1;
    static final byte EXTERNALIZABLE = 2;
    static final byte ENUM = 3;
    static final byte RECORD = 4;
    static final byte PROXY = 5;
    static final byte ARRAY = 6;
    static final byte CLASS_ONLY = 7;
    static final byte SPECIAL = 8;

    /** Special codecs: JDK value classes whose private fields need no reflection, and lambdas. */
    static final int SP_BOOLEAN = 1;
    static final int SP_BYTE = 2;
    static final int SP_CHAR = 3;
    static final int SP_SHORT = 4;
    static final int SP_INT = 5;
    static final int SP_LONG = 6;
    static final int SP_FLOAT = 7;
    static final int SP_DOUBLE = 8;
    static final int SP_LAMBDA = 9;
    /**
     * Exactly java.util.ArrayList (not subclasses): its serial form is only the size and the elements, so a
     * direct encoding is equivalent and skips its writeObject/readObject and field access (the JDK 24+ boxed path).
     */
    static final int SP_ARRAYLIST = 10;

    private static final ClassValue<ClassInfo> CACHE = new ClassValue<>() {
        @Override
        protected ClassInfo computeValue(Class<?> type) {
            return new ClassInfo(type);
        }
    };

    final Class<?> cl;
    final String name;
    final byte kind;
    final boolean serializable;
    final Slot[] slots;
    /** PLAIN and every slot has a generated codec and no writeObject: the tight path. */
    final boolean fast;
    final Constructor<?> ctor;
    /** PLAIN whose first non-serializable superclass is Object: instantiate with Unsafe.allocateInstance. */
    final boolean allocate;
    final MethodHandle writeReplace;
    final MethodHandle readResolve;
    final Object[] enumConstants;
    final int special;
    /** RECORD: component names/codes in JDK field order, boxed accessors, canonical constructor (Object[])Object. */
    final String[] recNames;
    final char[] recCodes;
    final MethodHandle[] recGet;
    final MethodHandle recCtor;
    /** ARRAY: component type code. */
    final char componentCode;
    final Class<?>[] interfaces;
    final String problem;
    /** The class name the JDK puts in the InvalidClassException for {@link #problem} (null: none). */
    final String problemClass;
    final byte[] descriptor;

    static ClassInfo of(Class<?> cl) {
        return CACHE.get(cl);
    }

    private ClassInfo(Class<?> cl) {
        this.cl = cl;
        this.name = cl.getName();
        Slot[] sl = null;
        Constructor<?> ct = null;
        MethodHandle wr = null;
        MethodHandle rr = null;
        Object[] ec = null;
        int sp = 0;
        String[] rn = null;
        char[] rc = null;
        MethodHandle[] rg = null;
        MethodHandle rctor = null;
        char cc = 0;
        Class<?>[] ifs = null;
        String prob = null;
        boolean probNamesNoClass = false;
        byte k;
        boolean ser = Serializable.class.isAssignableFrom(cl);
        if (cl.isArray()) {
            k = ARRAY;
            String n = cl.getName();
            cc = n.charAt(1);
            ser = true;
        } else if (cl.isEnum()) {
            k = ENUM;
            ec = cl.getEnumConstants();
        } else if ((sp = specialOf(cl)) != 0) {
            k = SPECIAL;
            if (sp == SP_LAMBDA) {
                rr = unary(JdkSupport.readResolve(cl));
            }
        } else if (!ser || cl == String.class || cl == Class.class || cl == ObjectStreamClass.class) {
            k = CLASS_ONLY; // not serializable, or has its own encoding: only ever named, never an ordinary object
        } else if (Proxy.isProxyClass(cl)) {
            k = PROXY;
            ifs = cl.getInterfaces();
            // as the JDK's ObjectStreamClass: a proxy class's writeReplace and readResolve are those its interfaces
            // declare (the handler answers them)
            wr = unary(JdkSupport.writeReplace(cl));
            rr = unary(JdkSupport.readResolve(cl));
        } else if (cl.isRecord()) {
            k = RECORD;
            wr = unary(JdkSupport.writeReplace(cl));
            rr = unary(JdkSupport.readResolve(cl));
            try {
                ObjectStreamField[] f = ObjectStreamClass.lookup(cl).getFields();
                MethodHandles.Lookup lk = MethodHandles.privateLookupIn(cl, MethodHandles.lookup());
                RecordComponent[] comps = cl.getRecordComponents();
                Class<?>[] ctypes = new Class<?>[comps.length];
                for (int i = 0; i < comps.length; i++) {
                    ctypes[i] = comps[i].getType();
                }
                MethodHandle canon = lk.findConstructor(cl, MethodType.methodType(void.class, ctypes));
                rn = new String[f.length];
                rc = new char[f.length];
                rg = new MethodHandle[f.length];
                // canonical constructor arguments come in component order; the stream uses field order
                int[] argIndex = new int[comps.length];
                for (int i = 0; i < f.length; i++) {
                    rn[i] = f[i].getName();
                    rc[i] = f[i].getTypeCode();
                    for (int j = 0; j < comps.length; j++) {
                        if (comps[j].getName().equals(rn[i])) {
                            rg[i] = lk.unreflect(comps[j].getAccessor())
                                    .asType(MethodType.methodType(Object.class, Object.class));
                            argIndex[j] = i;
                        }
                    }
                }
                MethodHandle spread = canon.asType(canon.type().changeReturnType(Object.class))
                        .asSpreader(Object[].class, comps.length);
                rctor = MethodHandles.filterArguments(spread, 0, reorder(argIndex));
            } catch (NoSuchMethodException t) {
                prob = "record canonical constructor not found"; // the JDK's words
            } catch (Throwable t) {
                prob = "record " + name + " is not accessible: " + t;
            }
        } else if (Externalizable.class.isAssignableFrom(cl)) {
            k = EXTERNALIZABLE;
            wr = unary(JdkSupport.writeReplace(cl));
            rr = unary(JdkSupport.readResolve(cl));
            ct = JdkSupport.externalizationConstructor(cl);
        } else {
            k = PLAIN;
            if (!Enum.class.isAssignableFrom(cl)) { // an enum constant's body: the JDK ignores its methods
                wr = unary(JdkSupport.writeReplace(cl));
                rr = unary(JdkSupport.readResolve(cl));
            }
            try {
                ct = java.lang.reflect.Modifier.isAbstract(cl.getModifiers()) ? null
                        : JdkSupport.serializationConstructor(cl);
            } catch (Throwable t) {
                ct = null;
            }
            boolean hidden = cl.isHidden();
            List<Class<?>> chain = new ArrayList<>();
            for (Class<?> c = cl; c != null && Serializable.class.isAssignableFrom(c); c = c.getSuperclass()) {
                chain.add(0, c);
            }
            try {
                sl = new Slot[chain.size()];
                for (int i = 0; i < sl.length; i++) {
                    sl[i] = new Slot(chain.get(i), !hidden);
                    String bad = JdkSupport.serialFieldsProblem(chain.get(i));
                    if (bad != null && prob == null) {
                        prob = bad; // the JDK's ObjectStreamClass refuses the class: writes and reads fail
                        probNamesNoClass = true; // and its message names no class
                    }
                }
            } catch (Throwable t) {
                sl = null;
                prob = "cannot describe " + name + ": " + t;
            }
        }
        boolean alloc = false;
        if (k == PLAIN && ct != null && JdkSupport.ALLOC != null) {
            Class<?> c = cl;
            while (c != null && Serializable.class.isAssignableFrom(c)) {
                c = c.getSuperclass();
            }
            alloc = c == Object.class;
        }
        this.allocate = alloc;
        boolean f = k == PLAIN && sl != null && ct != null && prob == null;
        if (f) {
            for (Slot s : sl) {
                if (s.writeObject != null || s.readObject != null || (s.codec == null && s.hasFields())
                        || s.unmatched) {
                    f = false;
                }
            }
        }
        this.kind = k;
        this.serializable = ser;
        this.slots = sl;
        this.fast = f;
        this.ctor = ct;
        this.writeReplace = wr;
        this.readResolve = rr;
        this.enumConstants = ec;
        this.special = sp;
        this.recNames = rn;
        this.recCodes = rc;
        this.recGet = rg;
        this.recCtor = rctor;
        this.componentCode = cc;
        this.interfaces = ifs;
        this.problem = prob;
        this.problemClass = probNamesNoClass ? null : name;
        this.descriptor = encodeDescriptor();
    }

    private static MethodHandle unary(MethodHandle h) {
        return h == null ? null : h.asType(MethodType.methodType(Object.class, Object.class));
    }

    /** (Object[] in field order) -> Object[] in component order. */
    private static MethodHandle reorder(int[] argIndex) throws ReflectiveOperationException {
        MethodHandle h = MethodHandles.lookup().findStatic(ClassInfo.class, "permute",
                MethodType.methodType(Object[].class, int[].class, Object[].class));
        return h.bindTo(argIndex);
    }

    @SuppressWarnings("unused") // through a method handle
    private static Object[] permute(int[] argIndex, Object[] fieldOrder) {
        Object[] r = new Object[argIndex.length];
        for (int j = 0; j < argIndex.length; j++) {
            r[j] = fieldOrder[argIndex[j]];
        }
        return r;
    }

    static int specialOf(Class<?> c) {
        if (c == Integer.class) return SP_INT;
        if (c == Long.class) return SP_LONG;
        if (c == Boolean.class) return SP_BOOLEAN;
        if (c == Double.class) return SP_DOUBLE;
        if (c == Float.class) return SP_FLOAT;
        if (c == Short.class) return SP_SHORT;
        if (c == Byte.class) return SP_BYTE;
        if (c == Character.class) return SP_CHAR;
        if (c == SerializedLambda.class) return SP_LAMBDA;
        if (c == java.util.ArrayList.class) return SP_ARRAYLIST;
        return 0;
    }

    static int specialOf(String name) {
        switch (name) {
            case "java.lang.Integer": return SP_INT;
            case "java.lang.Long": return SP_LONG;
            case "java.lang.Boolean": return SP_BOOLEAN;
            case "java.lang.Double": return SP_DOUBLE;
            case "java.lang.Float": return SP_FLOAT;
            case "java.lang.Short": return SP_SHORT;
            case "java.lang.Byte": return SP_BYTE;
            case "java.lang.Character": return SP_CHAR;
            case "java.lang.invoke.SerializedLambda": return SP_LAMBDA;
            case "java.util.ArrayList": return SP_ARRAYLIST;
            default: return 0;
        }
    }

    /**
     * Descriptor: kind, name, then per kind. PLAIN: slot count, per slot name, svuid, flags (1 = has writeObject),
     * field count, per field type code and name. RECORD: fields. EXTERNALIZABLE: svuid. PROXY: interface names.
     * Strings are a varint byte length and modified UTF-8 ({@link ModifiedUtf8}); longs are 8 bytes big-endian.
     */
    private byte[] encodeDescriptor() {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        b.write(kind);
        str(b, name);
        switch (kind) {
            case PLAIN:
                if (slots == null) {
                    varint(b, 0);
                    break;
                }
                varint(b, slots.length);
                for (Slot s : slots) {
                    str(b, s.cl.getName());
                    lng(b, s.svuid);
                    b.write(s.writeObject != null ? 1 : 0);
                    varint(b, s.codes.length);
                    for (int i = 0; i < s.codes.length; i++) {
                        b.write(s.codes[i]);
                        str(b, s.names[i]);
                    }
                }
                break;
            case RECORD:
                int n = recNames == null ? 0 : recNames.length;
                varint(b, n);
                for (int i = 0; i < n; i++) {
                    b.write(recCodes[i]);
                    str(b, recNames[i]);
                }
                break;
            case EXTERNALIZABLE:
                lng(b, ObjectStreamClass.lookup(cl).getSerialVersionUID());
                break;
            case PROXY:
                varint(b, interfaces.length);
                for (Class<?> i : interfaces) {
                    str(b, i.getName());
                }
                break;
            default:
                break;
        }
        return b.toByteArray();
    }

    static void varint(ByteArrayOutputStream b, int v) {
        while ((v & ~0x7F) != 0) {
            b.write((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b.write(v);
    }

    private static void str(ByteArrayOutputStream b, String s) {
        ModifiedUtf8.write(b, s);
    }

    private static void lng(ByteArrayOutputStream b, long v) {
        for (int i = 56; i >= 0; i -= 8) {
            b.write((int) (v >>> i));
        }
    }
}

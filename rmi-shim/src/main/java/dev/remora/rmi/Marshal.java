package dev.remora.rmi;

import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What both sides know of a method without asking the wire ({@link MethodInfo}), and the raw payload of a method whose
 * values are all primitive: the values in order, big-endian, without any stream (no allocation beyond boxing, as
 * RMI's own Object[] does), whatever the connection's {@link Marshaller}. Values of any other method travel in the
 * marshaller's stream.
 */
final class Marshal {
    /** Per-method facts both sides derive the same way from the Method, so nothing about them goes on the wire. */
    static final class MethodInfo {
        final Method method;
        final Class<?>[] params;
        final Class<?> result;
        final boolean rawArgs;
        final boolean rawResult;
        /**
         * For a method that could be one-way ({@link AsyncMethods#onewayRefusal}: void, no checked exception but
         * RemoteException), its synchronous calls on Remora's path and the time their callers waited, counted with
         * remora.stats ({@link RemoraRouter#onewayCandidates}); null for other methods.
         */
        final Waits waits;

        MethodInfo(Method m) {
            method = m;
            params = m.getParameterTypes();
            result = m.getReturnType();
            boolean raw = true;
            for (Class<?> p : params) {
                raw &= p.isPrimitive();
            }
            rawArgs = raw;
            rawResult = result.isPrimitive();
            waits = AsyncMethods.onewayRefusal(m) == null ? Waits.of(AsyncMethods.name(m)) : null;
        }

        boolean onewayCandidate() {
            return waits != null;
        }

        /** A synchronous call of this one-way candidate made its caller wait {@code nanos}. */
        void waited(long nanos) {
            waits.calls.incrementAndGet();
            waits.nanos.addAndGet(nanos);
        }
    }

    /**
     * The synchronous calls of the one-way candidates of one name ({@link AsyncMethods#name}), and their callers'
     * waits: by name, not by Method, so that the counts of a redeployed application's methods add up and the counts
     * keep no class, or class loader, alive.
     */
    static final class Waits {
        private static final ConcurrentHashMap<String, Waits> BY_NAME = new ConcurrentHashMap<>();
        final String name;
        final AtomicLong calls = new AtomicLong();
        final AtomicLong nanos = new AtomicLong();

        private Waits(String name) {
            this.name = name;
        }

        static Waits of(String name) {
            // no lambda: its first use spun a class, 0.8 ms on each side of a JVM's first call of a void method;
            // called once per method's MethodInfo, so a Waits made for nothing costs nothing worth a lookup first
            Waits fresh = new Waits(name);
            Waits first = BY_NAME.putIfAbsent(name, fresh);
            return first != null ? first : fresh;
        }

        /** Every name counted so far. */
        static java.util.Collection<Waits> all() {
            return BY_NAME.values();
        }
    }

    /**
     * Per remote interface (a Method's declaring class), the facts of its methods called so far: held by the class
     * itself, so that they go with it when its class loader goes (an application server's redeployment).
     */
    private static final ClassValue<ConcurrentHashMap<Method, MethodInfo>> INFOS =
            new ClassValue<ConcurrentHashMap<Method, MethodInfo>>() {
                @Override
                protected ConcurrentHashMap<Method, MethodInfo> computeValue(Class<?> type) {
                    return new ConcurrentHashMap<>();
                }
            };
    static final Object[] NO_ARGS = new Object[0];
    /**
     * The facts last looked up, by the Method's identity hash (a proxy passes the same Method on every call, and the
     * server's dispatch the same one of its method table): {@link #info} then costs an array read and a compare, where
     * the class's map costs a {@code ClassValue} and a hash lookup with {@code Method.hashCode} and {@code equals}, which
     * a fresh JVM runs interpreted on every call and C2 later compiles with all it inlines (docs/waiting.md, "The comm
     * size is the call path's warm-up").
     * Weak, so that the cache keeps no class alive: the class's own map is what keeps its facts. A method has two
     * slots, a pair; a third method of the pair takes the second slot. A thread may see a slot another has just set or
     * not yet, and either is right: a miss only looks in the class's map.
     */
    @SuppressWarnings("unchecked")
    private static final WeakReference<MethodInfo>[] RECENT = new WeakReference[256];

    private Marshal() {
    }

    static MethodInfo info(Method m) {
        int slot = slotOf(m);
        MethodInfo i = inCache(slot, m);
        if (i == null) {
            i = lookUp(m);
            RECENT[recent(slot, null) == null ? slot : slot ^ 1] = new WeakReference<>(i);
        }
        return i;
    }

    /** Whether {@link #info} finds {@code m}'s facts without the class's map (tests). */
    static boolean cached(Method m) {
        return inCache(slotOf(m), m) != null;
    }

    /** The first of {@code m}'s pair of slots. */
    private static int slotOf(Method m) {
        return System.identityHashCode(m) & (RECENT.length - 1);
    }

    /** {@code m}'s facts from its pair of slots, first {@code slot}, or null. */
    private static MethodInfo inCache(int slot, Method m) {
        MethodInfo i = recent(slot, m);
        return i != null ? i : recent(slot ^ 1, m);
    }

    /**
     * The facts in {@code slot} if they are {@code m}'s (or, for a null {@code m}, any live ones), else null. Equal
     * Methods share their facts (the class's map), and a JVM that calls and serves one interface has two instances of
     * each of its Methods: the facts name the first, the other one matches by {@code equals}.
     */
    private static MethodInfo recent(int slot, Method m) {
        WeakReference<MethodInfo> r = RECENT[slot];
        MethodInfo i = r == null ? null : r.get();
        return i != null && (m == null || i.method == m || i.method.equals(m)) ? i : null;
    }

    private static MethodInfo lookUp(Method m) {
        ConcurrentHashMap<Method, MethodInfo> infos = INFOS.get(m.getDeclaringClass());
        MethodInfo i = infos.get(m);
        if (i == null) {
            i = new MethodInfo(m);
            MethodInfo first = infos.putIfAbsent(m, i); // threads racing on a method's first call share one
            if (first != null) {
                i = first;
            }
        }
        return i;
    }

    /** All-primitive values, raw. */
    static void writeRaw(FrameBuffer b, Class<?>[] types, Object[] values) throws IOException {
        for (int i = 0; i < types.length; i++) {
            writePrimitive(b, types[i], values[i]);
        }
    }

    static Object[] readRaw(FrameBuffer b, Class<?>[] types) throws IOException {
        if (types.length == 0) {
            return NO_ARGS;
        }
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            values[i] = readPrimitive(b, types[i]);
        }
        return values;
    }

    /** A primitive (or void: nothing) value of {@code type}, as {@code UnicastRef.marshalValue} writes it. */
    static void writePrimitive(ObjectOutput out, Class<?> type, Object v) throws IOException {
        if (type == int.class) {
            out.writeInt((Integer) v);
        } else if (type == long.class) {
            out.writeLong((Long) v);
        } else if (type == boolean.class) {
            out.writeBoolean((Boolean) v);
        } else if (type == double.class) {
            out.writeDouble((Double) v);
        } else if (type == float.class) {
            out.writeFloat((Float) v);
        } else if (type == byte.class) {
            out.writeByte((Byte) v);
        } else if (type == char.class) {
            out.writeChar((Character) v);
        } else if (type == short.class) {
            out.writeShort((Short) v);
        } else if (type != void.class) {
            throw new IOException("unrecognized primitive type: " + type);
        }
    }

    static Object readPrimitive(FrameBuffer in, Class<?> type) throws IOException {
        if (type == int.class) {
            return in.readInt();
        } else if (type == long.class) {
            return in.readLong();
        } else if (type == boolean.class) {
            return in.readBoolean();
        } else if (type == double.class) {
            return in.readDouble();
        } else if (type == float.class) {
            return in.readFloat();
        } else if (type == byte.class) {
            return in.readByte();
        } else if (type == char.class) {
            return in.readChar();
        } else if (type == short.class) {
            return in.readShort();
        }
        throw new IOException("unrecognized primitive type: " + type);
    }

    static Object readPrimitive(ObjectInput in, Class<?> type) throws IOException {
        if (type == int.class) {
            return in.readInt();
        } else if (type == long.class) {
            return in.readLong();
        } else if (type == boolean.class) {
            return in.readBoolean();
        } else if (type == double.class) {
            return in.readDouble();
        } else if (type == float.class) {
            return in.readFloat();
        } else if (type == byte.class) {
            return in.readByte();
        } else if (type == char.class) {
            return in.readChar();
        } else if (type == short.class) {
            return in.readShort();
        }
        throw new IOException("unrecognized primitive type: " + type);
    }
}

package dev.remora.agent.hooks;

import dev.remora.serializer.ClassResolver;
import dev.remora.serializer.StreamHost;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * {@code remora.oos=fast}: an application's {@code ObjectInputStream} subclass (Spring's
 * {@code ConfigurableObjectInputStream}, a reader that resolves classes through its own loader) reading a stream in
 * Remora's format keeps its overrides: {@code resolveClass}, {@code resolveProxyClass} and, once enabled,
 * {@code resolveObject} are called on it, as the JDK's reader calls them (java.io is opened to the agent at install).
 *
 * <p>{@code resolveClass} receives a descriptor made for the call, as the JDK's reader passes the descriptor it just
 * read: the stream's class name and serialVersionUID, no class yet ({@code forClass()} is null), and no fields
 * (Remora's stream does not carry field types). An override of {@code readClassDescriptor} is called where the JDK
 * reads a class descriptor, before {@code resolveClass}; its call of {@code super.readClassDescriptor()} returns such
 * a descriptor (forwarded by {@code FastInputAdvice.ReadClassDescriptor}), and the class the descriptor it returns
 * names is the one resolved. Overrides that read the JDK's format themselves cannot work on Remora's format (see the
 * README's list).
 */
final class SubclassHost implements StreamHost {
    /** Weak: the bridge's map holds the reader, and this, as the value of the stream's weak key. */
    private final WeakReference<ObjectInputStream> stream;

    /** Whether the subclass overrides resolveClass / resolveProxyClass (else Remora applies the JDK's rule). */
    private final boolean ownResolveClass;
    private final boolean ownResolveProxyClass;
    private final boolean ownReadClassDescriptor;

    /** The descriptor the subclass's readClassDescriptor is reading (its super call returns it), or null. */
    private ObjectStreamClass beingRead;

    SubclassHost(ObjectInputStream stream) {
        this.stream = new WeakReference<>(stream);
        this.ownResolveClass = overrides(stream.getClass(), "resolveClass", ObjectStreamClass.class);
        this.ownResolveProxyClass = overrides(stream.getClass(), "resolveProxyClass", String[].class);
        this.ownReadClassDescriptor = overrides(stream.getClass(), "readClassDescriptor");
    }

    private static boolean overrides(Class<?> c, String name, Class<?>... params) {
        for (; c != ObjectInputStream.class && c != null; c = c.getSuperclass()) {
            try {
                c.getDeclaredMethod(name, params);
                return true;
            } catch (NoSuchMethodException e) {
                // not here: look further up
            }
        }
        return false;
    }

    private ObjectInputStream stream() throws IOException {
        ObjectInputStream s = stream.get();
        if (s == null) {
            throw new IOException("the application's ObjectInputStream was garbage-collected");
        }
        return s;
    }

    @Override
    public Class<?> resolveClass(String name, long serialVersionUID) throws IOException, ClassNotFoundException {
        if (!ownResolveClass) {
            // the JDK's own resolveClass, called from here, would take Remora's class loader for the latest
            // user-defined one on the stack; Remora's resolver applies the same rule past its own frames
            return ClassResolver.latestUserDefinedLoader().resolve(name);
        }
        ObjectStreamClass d = Handles.descriptor(name, serialVersionUID);
        try {
            return (Class<?>) Handles.RESOLVE_CLASS.invokeExact(stream(), d);
        } catch (IOException | ClassNotFoundException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    @Override
    public boolean readsClassDescriptors() {
        return ownReadClassDescriptor;
    }

    @Override
    public ObjectStreamClass readClassDescriptor(String name, long serialVersionUID)
            throws IOException, ClassNotFoundException {
        ObjectStreamClass outer = beingRead;
        beingRead = Handles.descriptor(name, serialVersionUID);
        try {
            return (ObjectStreamClass) Handles.READ_CLASS_DESCRIPTOR.invokeExact(stream());
        } catch (IOException | ClassNotFoundException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        } finally {
            beingRead = outer;
        }
    }

    @Override
    public ObjectStreamClass classDescriptorBeingRead() {
        return beingRead;
    }

    @Override
    public boolean resolvesProxyClasses() {
        return ownResolveProxyClass;
    }

    @Override
    public Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
        try {
            return (Class<?>) Handles.RESOLVE_PROXY.invokeExact(stream(), interfaces);
        } catch (IOException | ClassNotFoundException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    @Override
    public boolean resolvesObjects() {
        ObjectInputStream s = stream.get();
        return s != null && (boolean) Handles.ENABLE_RESOLVE.get(s);
    }

    @Override
    public Object resolveObject(Object obj) throws IOException {
        try {
            return (Object) Handles.RESOLVE_OBJECT.invokeExact(stream(), obj);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /** The JDK's protected methods and private state, looked up on first use. */
    private static final class Handles {
        static final MethodHandle RESOLVE_CLASS;
        static final MethodHandle RESOLVE_PROXY;
        static final MethodHandle RESOLVE_OBJECT;
        static final MethodHandle READ_CLASS_DESCRIPTOR;
        static final VarHandle ENABLE_RESOLVE;
        static final MethodHandle NEW_DESCRIPTOR;
        static final VarHandle NAME;
        static final VarHandle SUID;
        static final VarHandle FIELDS;
        private static final ObjectStreamField[] NO_FIELDS = new ObjectStreamField[0];

        static {
            try {
                MethodHandles.Lookup ois = MethodHandles.privateLookupIn(ObjectInputStream.class,
                        MethodHandles.lookup());
                RESOLVE_CLASS = ois.findVirtual(ObjectInputStream.class, "resolveClass",
                        MethodType.methodType(Class.class, ObjectStreamClass.class));
                RESOLVE_PROXY = ois.findVirtual(ObjectInputStream.class, "resolveProxyClass",
                        MethodType.methodType(Class.class, String[].class));
                RESOLVE_OBJECT = ois.findVirtual(ObjectInputStream.class, "resolveObject",
                        MethodType.methodType(Object.class, Object.class));
                READ_CLASS_DESCRIPTOR = ois.findVirtual(ObjectInputStream.class, "readClassDescriptor",
                        MethodType.methodType(ObjectStreamClass.class));
                ENABLE_RESOLVE = ois.findVarHandle(ObjectInputStream.class, "enableResolve", boolean.class);
                MethodHandles.Lookup osc = MethodHandles.privateLookupIn(ObjectStreamClass.class,
                        MethodHandles.lookup());
                NEW_DESCRIPTOR = osc.findConstructor(ObjectStreamClass.class, MethodType.methodType(void.class));
                NAME = osc.findVarHandle(ObjectStreamClass.class, "name", String.class);
                SUID = osc.findVarHandle(ObjectStreamClass.class, "suid", Long.class);
                FIELDS = osc.findVarHandle(ObjectStreamClass.class, "fields", ObjectStreamField[].class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        static ObjectStreamClass descriptor(String name, long suid) throws IOException {
            try {
                ObjectStreamClass d = (ObjectStreamClass) NEW_DESCRIPTOR.invokeExact();
                NAME.set(d, name);
                SUID.set(d, Long.valueOf(suid));
                FIELDS.set(d, NO_FIELDS);
                return d;
            } catch (Throwable t) {
                throw new IOException("cannot make a class descriptor for " + name, t);
            }
        }
    }
}

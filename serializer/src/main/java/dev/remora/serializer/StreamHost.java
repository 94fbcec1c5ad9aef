package dev.remora.serializer;

import java.io.IOException;
import java.io.ObjectStreamClass;

/**
 * What a reader of Remora's stream format asks of the application's {@code ObjectInputStream} subclass it reads for
 * ({@code remora.oos=fast}): that subclass's overrides decide, as the JDK's reader lets them decide. Implemented by
 * the agent, which can call the protected methods of the application's stream.
 */
public interface StreamHost {

    /**
     * The subclass's {@code resolveClass(ObjectStreamClass)}, given a descriptor with the stream's class name and
     * serialVersionUID (0 where the stream has none: enums, arrays, records).
     */
    Class<?> resolveClass(String name, long serialVersionUID) throws IOException, ClassNotFoundException;

    /** Whether the subclass overrides {@code resolveProxyClass}; if not, the reader resolves proxies itself. */
    boolean resolvesProxyClasses();

    /** The subclass's {@code resolveProxyClass(String[])}. */
    Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException;

    /** Whether the subclass enabled {@code resolveObject} ({@code enableResolveObject(true)}). */
    boolean resolvesObjects();

    /** The subclass's {@code resolveObject(Object)}. */
    Object resolveObject(Object obj) throws IOException;

    /** Whether the subclass overrides {@code readClassDescriptor}; if not, the reader uses the stream's own. */
    default boolean readsClassDescriptors() {
        return false;
    }

    /**
     * The subclass's {@code readClassDescriptor()}, called where the JDK's reader reads a class descriptor (before
     * resolving the class it names). Its call of {@code super.readClassDescriptor()} gets
     * {@link #classDescriptorBeingRead()}: a descriptor with the stream's class name and serialVersionUID.
     *
     * @return what the override returned: the reader resolves the class that descriptor names
     */
    default ObjectStreamClass readClassDescriptor(String name, long serialVersionUID)
            throws IOException, ClassNotFoundException {
        throw new UnsupportedOperationException();
    }

    /** The descriptor {@link #readClassDescriptor} is reading, or null when none is being read. */
    default ObjectStreamClass classDescriptorBeingRead() {
        return null;
    }
}

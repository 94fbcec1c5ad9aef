package dev.remora.rmi.fast;

import dev.remora.serializer.ClassResolver;
import dev.remora.serializer.ReadTypeTable;
import dev.remora.serializer.RemoraObjectInput;
import dev.remora.serializer.SerializerOptions;
import java.io.IOException;
import java.rmi.server.RMIClassLoader;
import java.util.Optional;

/**
 * Remora's deserializer with {@code sun.rmi.server.MarshalInputStream}'s class rule: the default loader is the latest
 * user-defined loader on the stack, except for a server reading arguments ({@code skipDefaultResolveClass}: none);
 * then {@link RMIClassLoader#loadClass(String, String, ClassLoader)} with no codebase annotation (as with
 * {@code java.rmi.server.useCodebaseOnly=true}, the default), i.e. the context class loader plus
 * {@code java.rmi.server.codebase}. A client's latest user-defined loader is the stub's, whose frame (a proxy's or an
 * rmic stub's method) is the first on the caller's stack that is neither Remora's nor the JDK's; only for a stub of
 * the JDK's own (the registry's, JMX's) is the stack walked, skipping Remora's frames, which the JDK's stream would
 * not see. Both loaders are the read's {@link #resolveWith}: a connection resolves each type again for other loaders.
 *
 * <p>Stubs read through here register their LiveRefs with the DGC directly: {@code LiveRef.read} sees an input that
 * is not a {@code ConnectionInputStream} and calls {@code DGCClient.registerRefs} at once.
 */
public final class RmiFastInput extends RemoraObjectInput {
    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);
    private ClassLoader defaultLoader;

    public RmiFastInput(ReadTypeTable types, SerializerOptions options) throws IOException {
        super(types, options);
    }

    /**
     * Before a read: {@code server}: a server reads arguments (no default loader; the context class loader, the
     * export's, decides); else a client reads a reply to a call through a stub whose class {@code stubLoader} defined.
     */
    void readFor(boolean server, ClassLoader stubLoader) {
        defaultLoader = server ? null : ClassResolver.userDefined(stubLoader) ? stubLoader : latestUserDefinedLoader();
        resolveWith(defaultLoader, Thread.currentThread().getContextClassLoader());
    }

    @Override
    public void endCall() {
        defaultLoader = null; // set again by the next read's readFor: keeps no stub's class loader between calls
        super.endCall();
    }

    /** MarshalInputStream reads a codebase annotation (an object) per class descriptor: a filter counts it. */
    @Override
    protected boolean readsClassAnnotations() {
        return true;
    }

    @Override
    protected Class<?> resolveClassName(String name) throws IOException, ClassNotFoundException {
        Class<?> p = ClassResolver.primitive(name);
        if (p != null) {
            return p;
        }
        return RMIClassLoader.loadClass((String) null, name, defaultLoader);
    }

    /** Runs once per read through a stub of the JDK's own, never per object. */
    private static ClassLoader latestUserDefinedLoader() {
        Optional<ClassLoader> l = WALKER.walk(s -> s.map(StackWalker.StackFrame::getDeclaringClass)
                .filter(c -> !c.getName().startsWith("dev.remora.")).map(Class::getClassLoader)
                .filter(ClassResolver::userDefined).findFirst());
        return l.orElse(null);
    }
}

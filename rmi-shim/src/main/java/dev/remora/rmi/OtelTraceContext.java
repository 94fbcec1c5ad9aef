package dev.remora.rmi;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * OpenTelemetry's Java agent's trace context ({@link TraceContext}), reached by reflection in the boot class loader,
 * where that agent puts its bootstrap classes and its shaded API: the current context
 * ({@code Java8BytecodeBridge.currentContext}), the configured propagators ({@code GlobalOpenTelemetry}), and the
 * thread-local its RMI server advice takes a call's parent context from ({@code bootstrap.rmi.ThreadLocalContext}, which
 * its own JRMP context call fills). Remora sees none of these types at compile time and needs none on its class path;
 * an agent without them (another version, or none) is found missing once, at the router's start.
 */
final class OtelTraceContext extends TraceContext {
    private static final String BOOTSTRAP = "io.opentelemetry.javaagent.bootstrap.";
    private static final String SHADED = "io.opentelemetry.javaagent.shaded.io.opentelemetry.";
    /** The agent's Premain-Class, on the system class path of a JVM started with it. */
    private static final String AGENT = "io.opentelemetry.javaagent.OpenTelemetryAgent";

    private static final MethodType SUPPLIER = MethodType.methodType(Object.class);

    private final RouterListener listener;
    /** () -> the current Context. */
    private final MethodHandle currentContext;
    /** () -> the configured TextMapPropagator (read at each use: the agent may set it after the router starts). */
    private final MethodHandle propagator;
    /** (propagator, context, carrier) -> void: writes the context's pairs into the carrier (a list). */
    private final MethodHandle inject;
    /** (propagator, carrier) -> the Context read from the carrier (the received pairs). */
    private final MethodHandle extract;
    /** (context) -> void: the agent's RMI thread-local, which its server advice takes the parent context from. */
    private final MethodHandle set;
    /** () -> what is left in that thread-local, which is cleared. */
    private final MethodHandle getAndReset;
    private volatile boolean broken;

    private OtelTraceContext(RouterListener listener, ClassLoader boot) throws Throwable {
        this.listener = listener;
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        Class<?> context = Class.forName(SHADED + "context.Context", false, boot);
        Class<?> setterType = Class.forName(SHADED + "context.propagation.TextMapSetter", false, boot);
        Class<?> getterType = Class.forName(SHADED + "context.propagation.TextMapGetter", false, boot);
        Class<?> textMap = Class.forName(SHADED + "context.propagation.TextMapPropagator", false, boot);
        Class<?> propagators = Class.forName(SHADED + "context.propagation.ContextPropagators", false, boot);
        Class<?> holder = Class.forName(BOOTSTRAP + "rmi.ThreadLocalContext", false, boot);
        currentContext = lookup.findStatic(Class.forName(BOOTSTRAP + "Java8BytecodeBridge", false, boot),
                "currentContext", MethodType.methodType(context)).asType(SUPPLIER);
        propagator = MethodHandles.filterReturnValue(
                lookup.findStatic(Class.forName(SHADED + "api.GlobalOpenTelemetry", false, boot), "getPropagators",
                        MethodType.methodType(propagators)),
                lookup.findVirtual(propagators, "getTextMapPropagator", MethodType.methodType(textMap)))
                .asType(SUPPLIER);
        InvocationHandler carrier = new Carrier();
        Object setter = Proxy.newProxyInstance(boot, new Class<?>[] {setterType}, carrier);
        Object getter = Proxy.newProxyInstance(boot, new Class<?>[] {getterType}, carrier);
        inject = MethodHandles.insertArguments(lookup.findVirtual(textMap, "inject",
                MethodType.methodType(void.class, context, Object.class, setterType)), 3, setter)
                .asType(MethodType.methodType(void.class, Object.class, Object.class, Object.class));
        Object root = lookup.findStatic(context, "root", MethodType.methodType(context)).invoke();
        extract = MethodHandles.insertArguments(MethodHandles.insertArguments(lookup.findVirtual(textMap, "extract",
                MethodType.methodType(context, context, Object.class, getterType)), 3, getter), 1, root)
                .asType(MethodType.methodType(Object.class, Object.class, Object.class));
        Object threadLocal = holder.getField("THREAD_LOCAL_CONTEXT").get(null);
        set = lookup.findVirtual(holder, "set", MethodType.methodType(void.class, context)).bindTo(threadLocal)
                .asType(MethodType.methodType(void.class, Object.class));
        getAndReset = lookup.findVirtual(holder, "getAndResetContext", MethodType.methodType(context))
                .bindTo(threadLocal).asType(SUPPLIER);
    }

    /** Null when OpenTelemetry's agent is not in this JVM; null, said once, when it is but cannot be reached. */
    static OtelTraceContext find(RouterListener listener) {
        ClassLoader boot = null;
        if (!present(BOOTSTRAP + "Java8BytecodeBridge", boot)) {
            if (present(AGENT, ClassLoader.getSystemClassLoader())) {
                listener.note("tracing", "OpenTelemetry's Java agent is on this JVM's class path, but not the"
                        + " bootstrap classes Remora reaches its trace context through (" + BOOTSTRAP
                        + "Java8BytecodeBridge: agents 2.x have it): servers record no span for Remora's calls;"
                        + " remora.transport=jrmp keeps RMI on JRMP, whose calls the agent traces");
            }
            return null;
        }
        try {
            return new OtelTraceContext(listener, boot);
        } catch (Throwable e) {
            if (e instanceof VirtualMachineError) {
                throw (VirtualMachineError) e;
            }
            listener.note("tracing", "OpenTelemetry's Java agent runs in this JVM, but Remora cannot carry its trace"
                    + " context (" + e + "): servers record no span for Remora's calls; remora.transport=jrmp keeps"
                    + " RMI on JRMP, whose calls the agent traces");
            return null;
        }
    }

    private static boolean present(String name, ClassLoader loader) {
        try {
            Class.forName(name, false, loader);
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    String name() {
        return "OpenTelemetry's trace context";
    }

    @Override
    String[] capture() {
        if (broken) {
            return null;
        }
        try {
            List<String> pairs = new ArrayList<>(4);
            Object p = (Object) propagator.invokeExact();
            Object c = (Object) currentContext.invokeExact();
            inject.invokeExact(p, c, (Object) pairs);
            return pairs.isEmpty() ? null : pairs.toArray(new String[0]);
        } catch (Throwable e) {
            fail("captured", e);
            return null;
        }
    }

    @Override
    void enter(String[] pairs) {
        if (broken) {
            return;
        }
        try {
            Object p = (Object) propagator.invokeExact();
            Object parent = (Object) extract.invokeExact(p, (Object) pairs);
            set.invokeExact(parent);
        } catch (Throwable e) {
            fail("handed over", e);
        }
    }

    @Override
    void exit() {
        if (broken) {
            return;
        }
        try {
            Object left = (Object) getAndReset.invokeExact(); // what no advice took (an untraced method): dropped
        } catch (Throwable e) {
            fail("taken back", e);
        }
    }

    private void fail(String what, Throwable e) {
        if (e instanceof VirtualMachineError) {
            throw (VirtualMachineError) e; // not the agent's failure: the JVM's
        }
        broken = true;
        listener.note("tracing", "OpenTelemetry's trace context could not be " + what + " (" + e + "): Remora's"
                + " calls go on without it from now on");
    }

    /**
     * The agent's TextMapSetter and TextMapGetter over Remora's carriers: a list being filled on the client, the
     * received pairs on the server.
     */
    private static final class Carrier implements InvocationHandler {
        @Override
        @SuppressWarnings("unchecked")
        public Object invoke(Object proxy, Method m, Object[] a) throws Throwable {
            switch (m.getName()) {
                case "set": // set(carrier, key, value)
                    if (a != null && a.length == 3 && a[0] instanceof List && a[1] != null && a[2] != null) {
                        ((List<String>) a[0]).add((String) a[1]);
                        ((List<String>) a[0]).add((String) a[2]);
                    }
                    return null;
                case "keys": // keys(carrier)
                    if (a != null && a.length == 1 && a[0] instanceof String[]) {
                        String[] pairs = (String[]) a[0];
                        List<String> keys = new ArrayList<>(pairs.length / 2);
                        for (int i = 0; i < pairs.length; i += 2) {
                            keys.add(pairs[i]);
                        }
                        return keys;
                    }
                    return Arrays.asList();
                case "get": // get(carrier, key)
                    if (a != null && a.length == 2 && a[0] instanceof String[]) {
                        String[] pairs = (String[]) a[0];
                        for (int i = 0; i + 1 < pairs.length; i += 2) {
                            if (pairs[i].equals(a[1])) {
                                return pairs[i + 1];
                            }
                        }
                    }
                    return null;
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == a[0];
                case "toString":
                    return "Remora's trace context carrier";
                default:
                    if (m.isDefault()) {
                        return InvocationHandler.invokeDefault(proxy, m, a);
                    }
                    throw new UnsupportedOperationException(m.toString());
            }
        }
    }
}

package dev.remora.rmi;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
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

    private final RouterListener listener;
    private final Method currentContext;
    private final Method getPropagators;
    private final Method getTextMapPropagator;
    private final Method inject;
    private final Method extract;
    private final Method root;
    private final Object threadLocal;
    private final Method set;
    private final Method getAndReset;
    private final Object setter;
    private final Object getter;
    private volatile boolean broken;

    private OtelTraceContext(RouterListener listener, ClassLoader boot) throws ReflectiveOperationException {
        this.listener = listener;
        Class<?> context = Class.forName(SHADED + "context.Context", false, boot);
        Class<?> setterType = Class.forName(SHADED + "context.propagation.TextMapSetter", false, boot);
        Class<?> getterType = Class.forName(SHADED + "context.propagation.TextMapGetter", false, boot);
        Class<?> propagator = Class.forName(SHADED + "context.propagation.TextMapPropagator", false, boot);
        Class<?> holder = Class.forName(BOOTSTRAP + "rmi.ThreadLocalContext", false, boot);
        currentContext = Class.forName(BOOTSTRAP + "Java8BytecodeBridge", false, boot).getMethod("currentContext");
        getPropagators = Class.forName(SHADED + "api.GlobalOpenTelemetry", false, boot).getMethod("getPropagators");
        getTextMapPropagator = getPropagators.getReturnType().getMethod("getTextMapPropagator");
        inject = propagator.getMethod("inject", context, Object.class, setterType);
        extract = propagator.getMethod("extract", context, Object.class, getterType);
        root = context.getMethod("root");
        Field f = holder.getField("THREAD_LOCAL_CONTEXT");
        threadLocal = f.get(null);
        set = holder.getMethod("set", context);
        getAndReset = holder.getMethod("getAndResetContext");
        InvocationHandler carrier = new Carrier();
        setter = Proxy.newProxyInstance(boot, new Class<?>[] {setterType}, carrier);
        getter = Proxy.newProxyInstance(boot, new Class<?>[] {getterType}, carrier);
    }

    /** Null when OpenTelemetry's agent is not in this JVM; null, said once, when it is but cannot be reached. */
    static OtelTraceContext find(RouterListener listener) {
        ClassLoader boot = null;
        try {
            Class.forName(BOOTSTRAP + "Java8BytecodeBridge", false, boot);
        } catch (ClassNotFoundException | LinkageError e) {
            return null; // no OpenTelemetry agent
        }
        try {
            return new OtelTraceContext(listener, boot);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            listener.note("tracing", "OpenTelemetry's Java agent runs in this JVM, but Remora cannot carry its trace"
                    + " context (" + e + "): servers record no span for Remora's calls; remora.transport=jrmp keeps"
                    + " RMI on JRMP, whose calls the agent traces");
            return null;
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
            inject.invoke(propagator(), currentContext.invoke(null), pairs, setter);
            return pairs.isEmpty() ? null : pairs.toArray(new String[0]);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
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
            set.invoke(threadLocal, extract.invoke(propagator(), root.invoke(null), pairs, getter));
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            fail("handed over", e);
        }
    }

    @Override
    void exit() {
        if (broken) {
            return;
        }
        try {
            getAndReset.invoke(threadLocal);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            fail("taken back", e);
        }
    }

    private Object propagator() throws ReflectiveOperationException {
        return getTextMapPropagator.invoke(getPropagators.invoke(null));
    }

    private void fail(String what, Throwable e) {
        broken = true;
        Throwable cause = e instanceof InvocationTargetException ? ((InvocationTargetException) e).getCause() : e;
        listener.note("tracing", "OpenTelemetry's trace context could not be " + what + " (" + cause + "): Remora's"
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

package dev.remora.agent;

import dev.remora.agent.bridge.AgentJar;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Loads the classes of a JVM's first Remora calls ahead of them ({@code remora.preload}): the connection and its
 * frames, the fast serializer and its codec generator, on both the calling and the serving side. About a hundred of
 * Remora's classes, which a first call otherwise loads one after the other while its caller waits (and its peer,
 * which then loads its own): the first call of a fresh JVM pair took 60-130 ms against 2-12 ms for JRMP, whose
 * classes the registry lookup had already loaded.
 *
 * <p>Runs on the router's start thread, once the application has started to use RMI, so it overlaps the
 * application's own start: registry, lookups, exports, waits for its peers. Classes are loaded and linked
 * (verified), not initialised, but for the few {@link #LEAVES}. The list
 * ({@value #LIST}) is made by {@code scripts/lib/first-calls-classes.sh} from a JVM pair's class-load log; a name that
 * no longer exists is skipped (counted in the debug line) and {@code PreloadListIT} fails on it.
 */
final class Preload {
    static final String LIST = "META-INF/remora/first-calls.classes";

    private Preload() {
    }

    /**
     * Initialised after the list is loaded: the first calls' slowest static initialisers (method handles into
     * {@code sun.rmi} and the 8 {@code LambdaForm} classes they spin; byte-order var handles; the CPU watch). Each
     * depends on JDK classes only, never on another of Remora's: a JDK class's initialiser never waits for one of
     * Remora's, so this thread and an application thread that initialises the same class at the same time cannot
     * deadlock. In a fresh JVM pair they were 5-8 ms of the first call's 28-34 ms on each side, spent while the caller
     * waited (the shared spinner count's first open, another 5-10 ms, now runs on a thread of its own at the first
     * wait: {@code HostSpinners.jvm}).
     */
    static final String[] LEAVES = {
        "dev.remora.rmi.jdk.RmiInternals",
        "dev.remora.serializer.Bytes",
        "dev.remora.rmi.transport.CpuWatch",
    };

    /**
     * Links {@code c} (verifies its bytecode) without initialising it; false if that failed. HotSpot links a class
     * before it lists its members, and a class's constructors are few. Loading alone left the verification to the
     * first call that uses the class: 0.5 ms for the serializer's writer, 1.1 ms for its reader, on a first call with
     * an object argument in a JVM whose calls had all been primitive (docs/startup.md, "Classes verified ahead").
     */
    static boolean link(Class<?> c) {
        try {
            c.getDeclaredConstructors();
            return true;
        } catch (LinkageError | RuntimeException e) { // its first use fails the same way, and says so
            Log.debug("preload: " + c.getName() + " not linked ahead: " + e);
            return false;
        }
    }

    /** The type of the bridge's client hook handle ({@code Hooks.handles()[0]}, checked by a test). */
    static final java.lang.invoke.MethodType CLIENT_INVOKE = java.lang.invoke.MethodType.methodType(Object[].class,
            Object.class, Object.class, java.lang.reflect.Method.class, Object[].class, long.class);

    /**
     * Makes the JDK spin, here, the invokers that a first call's {@code invokeExact}s need and the JDK has none ready
     * for: the client hook's ({@code RemoraBridge.clientInvoke}: (Object, Object, Method, Object[], long)Object[]) and
     * those of the one-argument handles into {@code sun.rmi} ({@code RmiInternals}: (Object)Object, and on a server's
     * first dispatch (Object)boolean, {@code Target.removed}, and (Object)void, its call counts). The JDK caches an
     * invoker by its type's basic form, so the call sites find them made; each was 0.2-1 ms of the first call.
     */
    static void spinInvoker() {
        try {
            java.lang.invoke.MethodHandles.Lookup l = java.lang.invoke.MethodHandles.lookup();
            java.lang.invoke.MethodHandle h = l.findStatic(Preload.class, "noCall", CLIENT_INVOKE);
            Object[] none = (Object[]) h.invokeExact((Object) null, (Object) null, (java.lang.reflect.Method) null,
                    (Object[]) null, 0L);
            java.lang.invoke.MethodHandle g = l.findStatic(Preload.class, "noCall",
                    java.lang.invoke.MethodType.methodType(Object.class, Object.class));
            Object nothing = (Object) g.invokeExact((Object) null);
            java.lang.invoke.MethodHandle z = l.findStatic(Preload.class, "noTest",
                    java.lang.invoke.MethodType.methodType(boolean.class, Object.class));
            boolean no = (boolean) z.invokeExact((Object) null);
            java.lang.invoke.MethodHandle v = l.findStatic(Preload.class, "noUse",
                    java.lang.invoke.MethodType.methodType(void.class, Object.class));
            v.invokeExact((Object) null);
        } catch (Throwable t) {
            Log.debug("preload: the first calls' invokers not all made ahead: " + t);
        }
    }

    private static Object noCall(Object x) {
        return null;
    }

    private static boolean noTest(Object x) {
        return false;
    }

    private static void noUse(Object x) {
    }

    private static Object[] noCall(Object ref, Object proxy, java.lang.reflect.Method method, Object[] args,
            long hash) {
        return null;
    }

    /**
     * Loads and links the listed classes with the agent's class loader, initialises {@link #LEAVES}; returns the count
     * found.
     */
    static int run() {
        ClassLoader loader = Preload.class.getClassLoader();
        long start = System.nanoTime();
        int missing = 0;
        java.util.List<Class<?>> loaded = new java.util.ArrayList<>(256);
        try {
            byte[] list = AgentJar.readOrNull(loader, LIST);
            if (list == null) {
                Log.debug("preload: no " + LIST + " in the agent jar");
                return 0;
            }
            for (String line : new String(list, StandardCharsets.UTF_8).split("\n")) {
                String name = line.trim();
                if (name.isEmpty() || name.startsWith("#")) {
                    continue;
                }
                try {
                    loaded.add(Class.forName(name, false, loader));
                } catch (ClassNotFoundException | LinkageError e) {
                    missing++;
                }
            }
        } catch (IOException e) {
            Log.debug("preload: " + e);
        }
        for (Class<?> c : loaded) { // after all are loaded: verifying one loads the classes it names
            link(c);
        }
        spinInvoker();
        for (String name : LEAVES) {
            try {
                Class.forName(name, true, loader);
            } catch (ClassNotFoundException | LinkageError e) { // its first use fails the same way, and says so
                Log.debug("preload: " + name + " not initialised ahead: " + e);
            }
        }
        if (Log.debugEnabled()) {
            Log.debug("preloaded " + loaded.size() + " classes in " + (System.nanoTime() - start) / 1_000_000 + " ms"
                    + (missing > 0 ? " (" + missing + " listed but not found)" : ""));
        }
        return loaded.size();
    }
}

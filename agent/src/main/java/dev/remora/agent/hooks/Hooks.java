package dev.remora.agent.hooks;

import dev.remora.agent.Log;
import dev.remora.agent.stats.Stats;
import dev.remora.rmi.CallRouter;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.net.Socket;

/**
 * The agent-side targets of {@code java.io.RemoraBridge}: counts what the hooks see and hands RMI work to the
 * {@link CallRouter}. Static because the bridge binds method handles to these methods; all state is in the two
 * fields set once by {@link #bind}.
 */
public final class Hooks {
    private static volatile Stats stats = new Stats();
    private static volatile CallRouter router = CallRouter.JRMP;

    private Hooks() {
    }

    public static void bind(Stats s, CallRouter r) {
        stats = s;
        router = r;
    }

    public static Stats stats() {
        return stats;
    }

    /**
     * Handles for {@code RemoraBridge.install}, in its field order; the last three (remora.oos=fast's) only when
     * {@code oosFast}: their types name ObjectOutputStream and ObjectInputStream, which a JVM that does not use them
     * need not load.
     */
    public static MethodHandle[] handles(boolean oosFast) throws ReflectiveOperationException {
        MethodHandles.Lookup l = MethodHandles.lookup();
        MethodHandle[] rmi = {
            l.findStatic(Hooks.class, "clientInvoke", MethodType.methodType(Object[].class, Object.class,
                    Object.class, Method.class, Object[].class, long.class)),
            l.findStatic(Hooks.class, "exported", MethodType.methodType(void.class, Object.class, Object.class,
                    Object.class)),
            l.findStatic(Hooks.class, "dispatch", MethodType.methodType(void.class, Object.class, Object.class)),
            l.findStatic(Hooks.class, "accept", MethodType.methodType(Socket.class, Object.class, Socket.class)),
            l.findStatic(Hooks.class, "streamWrite", MethodType.methodType(void.class, Object.class, Object.class)),
            l.findStatic(Hooks.class, "streamRead", MethodType.methodType(void.class, Object.class)),
            l.findStatic(Hooks.class, "adviceFailed", MethodType.methodType(void.class, Throwable.class)),
            l.findStatic(Hooks.class, "async", MethodType.methodType(java.util.concurrent.CompletableFuture.class,
                    java.util.concurrent.Callable.class)),
            l.findStatic(Hooks.class, "stubsArrived", MethodType.methodType(void.class, Object.class, Object.class)),
        };
        if (!oosFast) {
            return rmi;
        }
        return new MethodHandle[] {rmi[0], rmi[1], rmi[2], rmi[3], rmi[4], rmi[5], rmi[6], rmi[7], rmi[8],
            l.findStatic(OosFast.class, "openWriter", MethodType.methodType(Object.class,
                    java.io.ObjectOutputStream.class, Object.class)),
            l.findStatic(OosFast.class, "openReader", MethodType.methodType(Object.class,
                    java.io.ObjectInputStream.class, Object.class)),
            l.findStatic(OosFast.class, "classDescriptor", MethodType.methodType(java.io.ObjectStreamClass.class,
                    java.io.ObjectInputStream.class)),
        };
    }

    /** Why calls stay on JRMP under a SecurityManager (JDK 17): said once, counted per call. */
    public static final String SECURITY_MANAGER = "a SecurityManager is installed: Remora leaves this JVM's RMI to JRMP"
            + " (its code holds no permissions of its own under the policy; run without a SecurityManager to use it)";

    /**
     * JDK 17's SecurityManager: Remora's classes hold no permissions (the policy does not name its jar), so every
     * socket, thread and reflective step it takes for the application would be denied; it stays out of the way.
     */
    @SuppressWarnings("removal")
    private static boolean underSecurityManager() {
        if (System.getSecurityManager() == null) {
            return false;
        }
        Log.once("security-manager", SECURITY_MANAGER);
        return true;
    }

    static Object[] clientInvoke(Object ref, Object proxy, Method method, Object[] args, long hash) {
        Object[] outcome;
        try {
            if (underSecurityManager()) {
                stats.fallback(SECURITY_MANAGER);
                stats.callsJrmp.increment();
                return null;
            }
            outcome = router.invoke(ref, proxy, method, args, hash);
        } catch (Throwable t) {
            String reason = "Remora could not start a call, JRMP made it: " + t;
            Log.once("invoke:" + t.getClass().getName(), reason);
            stats.fallback(reason);
            outcome = null;
        }
        (outcome == null ? stats.callsJrmp : stats.callsRemora).increment();
        return outcome;
    }

    /**
     * {@code Remora.async(task)}: null (the API runs the task itself) when Remora stays out of this JVM's RMI; else the
     * router runs it, and no exception leaves once the task has run (it must not run twice).
     */
    static java.util.concurrent.CompletableFuture<?> async(java.util.concurrent.Callable<?> task) {
        if (underSecurityManager()) {
            return null;
        }
        boolean[] started = {false};
        try {
            return router.async(() -> {
                started[0] = true;
                return task.call();
            });
        } catch (Throwable t) {
            String reason = "Remora could not take a Remora.async task: " + t;
            Log.once("async:" + t.getClass().getName(), reason, t);
            stats.fallback(reason);
            // before the task ran, the API runs it; after, it must not run again
            return started[0] ? java.util.concurrent.CompletableFuture.failedFuture(t) : null;
        }
    }

    static void exported(Object serverRef, Object impl, Object stub) {
        stats.exports.increment();
        if (!underSecurityManager()) {
            router.exported(serverRef, impl, stub);
        }
    }

    /** Stubs for remote objects at {@code endpoint} arrived: the router may open its connection there now. */
    static void stubsArrived(Object endpoint, Object refs) {
        if (!underSecurityManager()) {
            router.stubsArrived(endpoint, (java.util.List<?>) refs);
        }
    }

    static void dispatch(Object serverRef, Object impl) {
        stats.serverJrmpDispatches.increment();
    }

    static Socket accept(Object connectionHandler, Socket socket) throws java.io.IOException {
        stats.accepts.increment();
        return underSecurityManager() ? socket : router.accept(connectionHandler, socket);
    }

    static void streamWrite(Object stream, Object obj) {
        stats.streamWrites.increment();
    }

    static void streamRead(Object stream) {
        stats.streamReads.increment();
    }

    static void adviceFailed(Throwable t) {
        stats.adviceErrors.increment();
        Log.once("advice:" + t.getClass().getName(),
                "a hook failed and the JDK's own code ran instead (counted in stats as advice_errors)", t);
    }
}

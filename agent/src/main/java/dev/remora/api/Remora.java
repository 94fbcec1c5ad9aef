package dev.remora.api;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One remote call without waiting for it, chosen by the caller:
 *
 * <pre>{@code
 * CompletableFuture<Summary> f = Remora.async(() -> ledger.summary("q3"));
 * CompletableFuture<Void> g = Remora.async(() -> log.append(line));
 * ... other work, other calls ...
 * Summary s = f.join();
 * }</pre>
 *
 * <p>With Remora's agent in this JVM and the object's server running it too, the task's remote call is sent and
 * {@code async} returns at once; the future completes when the reply has arrived, with the call's result or with the
 * exception the call would have thrown (a {@code RemoteException} if the connection is lost). The server runs such
 * calls concurrently with the caller's other calls, in no order with them: chain on the future what must follow. The
 * future's non-async dependent stages ({@code thenApply}, not {@code thenApplyAsync}) run on the agent's thread that
 * read the reply: keep them short.
 *
 * <p>The task must be exactly one call on a stub, its result returned as it is: the stub gives the task a placeholder
 * (null, zero, false) at once, as the real result is not there yet. A task that used it (returned anything else, or
 * threw after the call) gets a future failed with an {@code IllegalStateException} saying so; the call was made.
 *
 * <p>Without the agent, with a server that runs without it, for an object in this JVM, or for a task that makes no
 * remote call, the task runs at once on the caller's thread, and the returned future is already complete: the
 * program means the same with or without Remora.
 *
 * <p>This class depends on nothing but the JDK. It finds the agent through {@code java.io.RemoraBridge}, which the
 * agent defines when the application first uses RMI; until then tasks run synchronously (looked for again at most
 * once a second).
 */
public final class Remora {
    private static final long LOOK_AGAIN_NANOS = TimeUnit.SECONDS.toNanos(1);
    private static volatile MethodHandle bridge;
    private static volatile long lookedAt;
    private static volatile boolean looked;

    private Remora() {
    }

    /** A remote call that returns a value. */
    @FunctionalInterface
    public interface Call<T> {
        T call() throws Exception;
    }

    /** A remote call of a {@code void} method. */
    @FunctionalInterface
    public interface VoidCall {
        void call() throws Exception;
    }

    /**
     * Makes the task's remote call without waiting for its result.
     *
     * @return a future of the call's result (complete already when the call was made synchronously); never null
     */
    @SuppressWarnings("unchecked")
    public static <T> CompletableFuture<T> async(Call<T> task) {
        Callable<T> c = task::call;
        MethodHandle h = bridge();
        if (h != null) {
            try {
                CompletableFuture<?> f = (CompletableFuture<?>) h.invokeExact((Callable<?>) c);
                if (f != null) {
                    return (CompletableFuture<T>) f;
                }
            } catch (Throwable t) {
                // the agent could not take the task before running it: it runs here
            }
        }
        try {
            return CompletableFuture.completedFuture(c.call());
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    /**
     * Makes the task's remote call of a {@code void} method without waiting for it to end.
     *
     * @return a future completed (with null) when the call has ended on the server, or with what it threw
     */
    public static CompletableFuture<Void> async(VoidCall task) {
        return async((Call<Void>) () -> {
            task.call();
            return null;
        });
    }

    /** Whether the agent takes tasks in this JVM now (false before the application's first use of RMI). */
    public static boolean agentActive() {
        return bridge() != null;
    }

    private static MethodHandle bridge() {
        MethodHandle h = bridge;
        if (h != null) {
            return h;
        }
        long now = System.nanoTime();
        if (looked && now - lookedAt < LOOK_AGAIN_NANOS) {
            return null;
        }
        try {
            Class<?> c = Class.forName("java.io.RemoraBridge", false, null);
            h = MethodHandles.publicLookup().findStatic(c, "async",
                    MethodType.methodType(CompletableFuture.class, Callable.class));
            bridge = h;
            return h;
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            lookedAt = now;
            looked = true;
            return null;
        }
    }
}

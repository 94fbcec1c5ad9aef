package dev.remora.rmi;

import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.wire.Frame;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.rmi.UnexpectedException;
import java.rmi.server.ObjID;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code Remora.async(() -> stub.m(x))}, the caller's own choice (the API jar's {@code dev.remora.api.Remora}, through
 * {@code java.io.RemoraBridge}): the task runs at once on the caller's thread, marked; the first call it makes on a
 * Remora connection is sent as a future call is (no lane: the server runs it on a pool thread, in no order with the
 * caller's other calls) and returns a placeholder (null, zero, false) to the task; the task's
 * {@link CompletableFuture} is completed with the call's outcome when its reply has been read.
 *
 * <p>Nobody may be waiting when the reply comes (the caller may only chain on the future), and a client connection
 * has no reader thread of its own ({@link ClientConnection}): so while a connection has such calls out, one thread of
 * a small shared pool ({@code remora-async-N}, made on demand, gone after a minute idle) waits for their replies in
 * the order they were sent, reading the connection as any waiting caller does, and completes the futures; their
 * non-async dependent stages run on it. No thread is made per call.
 *
 * <p>A task that makes no call Remora carries (its server runs no Remora, the object is in this JVM, RMI's registry)
 * has run synchronously: its future is complete when {@code async} returns, as it is without the agent. A task that
 * used the placeholder (returned something else, or threw after the call) gets a future failed with an
 * IllegalStateException that says so: the call was made, and its result is dropped.
 */
final class ExplicitAsync {
    private final RemoraRouter router;
    private final RouterOptions options;
    private final ThreadLocal<Capture> captures = new ThreadLocal<>() {
        @Override
        protected Capture initialValue() {
            return new Capture();
        }
    };
    /** Set by the first task: until then a call pays one volatile read for this. */
    private volatile boolean used;
    private volatile Executor drainers;

    /** A thread's task in progress. */
    static final class Capture {
        boolean armed;
        Call taken;
    }

    /** A call sent for a task, until its reply has been read. */
    static final class Call {
        final PendingCall pending;
        final ObjID id;
        final Marshal.MethodInfo info;
        final Method method;
        final CompletableFuture<Object> future = new CompletableFuture<>();

        Call(PendingCall pending, ObjID id, Marshal.MethodInfo info, Method method) {
            this.pending = pending;
            this.id = id;
            this.info = info;
            this.method = method;
        }
    }

    /** One connection's calls sent for tasks whose reply has not been read, oldest first, and how many. */
    static final class Queue {
        final ConcurrentLinkedQueue<Call> calls = new ConcurrentLinkedQueue<>();
        final AtomicInteger out = new AtomicInteger();
    }

    ExplicitAsync(RemoraRouter router, RouterOptions options) {
        this.router = router;
        this.options = options;
    }

    /** Runs {@code task}; never throws (what the task throws completes the future). */
    CompletableFuture<Object> run(Callable<?> task) {
        used = true;
        Capture cap = captures.get();
        if (cap.armed) { // a task inside a task: it runs as it would without the agent, and captures nothing
            cap.armed = false;
            Call outer = cap.taken;
            try {
                return ran(task);
            } finally {
                cap.armed = true;
                cap.taken = outer;
            }
        }
        cap.armed = true;
        cap.taken = null;
        Object result = null;
        Throwable thrown = null;
        try {
            result = task.call();
        } catch (Throwable t) {
            thrown = t;
        } finally {
            cap.armed = false;
        }
        Call call = cap.taken;
        cap.taken = null;
        if (call == null) {
            options.listener.asyncTask(false);
            options.listener.note("async-api-sync", "Remora.async ran a task synchronously: it made no call that"
                    + " Remora carries (the object's server runs without Remora, the object is in this JVM, or it is"
                    + " RMI's registry); such a task's future is complete when async returns");
            return thrown == null ? CompletableFuture.completedFuture(result) : CompletableFuture.failedFuture(thrown);
        }
        options.listener.asyncTask(true);
        Object placeholder = placeholder(call.method.getReturnType());
        if (thrown == null && Objects.equals(result, placeholder)) {
            return call.future;
        }
        return CompletableFuture.failedFuture(new IllegalStateException("Remora.async: a task must return the"
                + " result of its remote call as it is, but after calling " + call.method.getDeclaringClass().getName()
                + "." + call.method.getName() + " it " + (thrown != null ? "threw " + thrown : "returned " + result)
                + " while the result was not there yet (" + placeholder + " stood for it); the call was made and its"
                + " result is dropped. Chain what follows the call on the future (thenApply).", thrown));
    }

    private static CompletableFuture<Object> ran(Callable<?> task) {
        try {
            return CompletableFuture.completedFuture(task.call());
        } catch (Throwable t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    /** The calling thread's capture when it runs a task that has sent no call yet; else null. */
    Capture armed() {
        if (!used) {
            return null;
        }
        Capture cap = captures.get();
        return cap.armed && cap.taken == null ? cap : null;
    }

    /**
     * Sends the task's call: the outcome the stub returns to the task at once (the placeholder), or that of a call
     * that failed before it was sent, or null to leave it to JRMP (which then makes it synchronously).
     */
    Object[] capture(Capture cap, ClientConnection c, ObjID id, long hash, Marshal.MethodInfo info, Object[] args,
            Method method, ClassLoader stubLoader) {
        try {
            c.reserveFuture();
        } catch (IOException e) {
            return e instanceof ClientConnection.Retired ? null : new Object[] {null, RemoraRouter.broken(c, e)};
        }
        PendingCall pc = new PendingCall(true);
        pc.stubLoader = stubLoader;
        pc.contextLoader = Thread.currentThread().getContextClassLoader();
        Object[] failed = router.send(c, pc, Frame.CALL, Frame.LANE_ANY, id, hash, info, args);
        if (failed != RemoraRouter.SENT) {
            if (pc.id == 0) {
                c.unreserveFuture(); // never registered: its place is given back here
            }
            return failed;
        }
        Call call = new Call(pc, id, info, method);
        cap.taken = call;
        Queue q = c.apiCalls;
        q.calls.add(call);
        if (q.out.getAndIncrement() == 0) {
            try {
                drainers().execute(() -> drain(c, q));
            } catch (RejectedExecutionException | OutOfMemoryError e) { // no thread to be had: wait here
                drain(c, q);
            }
        }
        return new Object[] {placeholder(method.getReturnType()), null};
    }

    /** Waits for the replies of {@code q}'s calls in turn and completes their futures, until none is left. */
    private void drain(ClientConnection c, Queue q) {
        do {
            Call call = q.calls.poll();
            try {
                Object[] outcome = router.outcome(c, call.pending, call.id, call.info);
                Throwable thrown = (Throwable) outcome[1];
                if (thrown == null) {
                    call.future.complete(outcome[0]);
                } else {
                    call.future.completeExceptionally(asThrownByStub(call.method, thrown));
                }
            } catch (Throwable t) {
                call.future.completeExceptionally(t);
            }
        } while (q.out.decrementAndGet() != 0);
    }

    /**
     * What the stub would have thrown for {@code thrown} (RemoteObjectInvocationHandler, and rmic's stubs): a checked
     * exception the method does not declare arrives as an UnexpectedException.
     */
    static Throwable asThrownByStub(Method method, Throwable thrown) {
        if (!(thrown instanceof Exception) || thrown instanceof RuntimeException) {
            return thrown;
        }
        for (Class<?> declared : method.getExceptionTypes()) {
            if (declared.isInstance(thrown)) {
                return thrown;
            }
        }
        return new UnexpectedException("unexpected exception", (Exception) thrown);
    }

    /**
     * What a call of return type {@code type} gives its task at once: the type's default value, boxed as the stub
     * unboxes it (a fresh one-element array's element).
     */
    static Object placeholder(Class<?> type) {
        return type.isPrimitive() && type != void.class ? Array.get(Array.newInstance(type, 1), 0) : null;
    }

    private Executor drainers() {
        Executor d = drainers;
        if (d == null) {
            synchronized (this) {
                d = drainers;
                if (d == null) {
                    AtomicInteger n = new AtomicInteger();
                    drainers = d = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                            new SynchronousQueue<>(),
                            r -> SystemThreads.newThread(r, "remora-async-" + n.incrementAndGet(), true));
                }
            }
        }
        return d;
    }
}

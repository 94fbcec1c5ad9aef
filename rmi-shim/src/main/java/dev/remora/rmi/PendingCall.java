package dev.remora.rmi;

import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One thread's call in flight. Reused by its thread for every call (a thread waits for one reply at a time), so a
 * call allocates no bookkeeping; a future call ({@link #future}) has one of its own, whose reply whichever thread uses
 * the future first waits for. State moves WAITING -> RECEIVING (a reader claimed it) -> DONE, or WAITING ->
 * FAILED / TIMED_OUT; the CAS makes a late reply and a timeout never both win.
 */
final class PendingCall {
    static final int IDLE = 0;
    static final int WAITING = 1;
    static final int RECEIVING = 2;
    static final int DONE = 3;
    static final int FAILED = 4;
    static final int TIMED_OUT = 5;

    /** The thread waiting for the reply (a future's: the thread using it first, null until then). */
    volatile Thread thread;
    /**
     * remora.fabric.upgrade: when this thread's last synchronous call was made and returned while a move was pending,
     * and from which endpoint (a call to one neighbour right after one to another does not make either connection's
     * calls back to back).
     */
    long calledAt;
    long returnedAt;
    RemoteEndpoint returnedFrom;
    /** A future call: freed from its connection's table as soon as its reply is read (nobody may be waiting). */
    final boolean future;
    final FrameBuffer out = new FrameBuffer(512).allowTail(); // sent straight to the link under the write lock
    final FrameBuffer in = new FrameBuffer(512);
    final AtomicInteger state = new AtomicInteger(IDLE);
    volatile int id;
    volatile IOException failure;
    /** Fast serializer: the reader decodes the reply in arrival order and leaves the outcome here. */
    Marshal.MethodInfo method;
    /** The loader of the class of the stub the call was made through: its reply's classes resolve there first. */
    ClassLoader stubLoader;
    /**
     * The calling thread's context class loader when it called: another thread that reads its reply (the
     * connection's leader) resolves the reply's classes with it, as JRMP's caller, which reads its own reply, does.
     */
    ClassLoader contextLoader;
    boolean decoded;
    /** The result, or the exception the server threw. */
    Object value;
    /** Why the reply could not be decoded, or null. */
    Throwable decodeFailure;

    PendingCall() {
        this(false);
    }

    PendingCall(boolean future) {
        this.future = future;
        this.thread = future ? null : Thread.currentThread();
    }

    /**
     * The call is over: lets go of what it named (its method, its stub's class loader), which this thread's next call
     * replaces, so that a thread that stops calling keeps no class of a dropped deployment alive, and of its buffers
     * beyond {@link dev.remora.serializer.KeptBuffer#KEEP}, so that a thread that once made a large call does not keep its size.
     */
    void forget() {
        method = null;
        stubLoader = null;
        contextLoader = null;
        value = null;
        out.relax(); // nor a large call's buffers (KeptBuffer.KEEP)
        in.relax();
    }

    boolean claim() {
        return state.compareAndSet(WAITING, RECEIVING);
    }

    boolean fail(IOException e) {
        failure = e;
        return state.compareAndSet(WAITING, FAILED);
    }
}

package dev.remora.rmi;

/** What the router tells its host (the agent's counters and log). Must be cheap and must not throw. */
public interface RouterListener {
    /** Bytes of frames written to / read from Remora's connections. */
    void bytes(long out, long in);

    /** Something worth one line in the log, reported once per {@code key} by the host. */
    void note(String key, String message);

    /**
     * Remora could not do something its own way and did it a lesser way (fabric to socket, a result by JDK
     * serialization, a call by JRMP): logged once per {@code key} and counted by the host.
     */
    default void fallback(String key, String message) {
        note(key, message);
    }

    /** The fast serializer sent {@code n} type descriptors (classes described in full, not by id) in one message. */
    default void typeDescriptors(int n) {
    }

    /** remora.dispatch=auto: a call ran long on its reading thread, so a pool thread took over reading. */
    default void handoff() {
    }

    /**
     * A Remora connection was set up over {@code technology} ("fabric" or "socket"); {@code what} says with whom and
     * how, for {@code remora.log=debug} (why a technology was chosen is said by {@link #debug} or {@link #fallback}).
     * The host counts them.
     */
    default void linked(String technology, String what) {
        debug(what);
    }

    /**
     * A connection moved to a faster technology once it was up (remora.fabric.upgrade); {@code what} says which.
     * The host counts it.
     */
    default void upgraded(String what) {
        debug(what);
    }

    /**
     * A declared asynchronous method stays synchronous ({@code message} says which and why): logged once per
     * {@code key} and counted by the host.
     */
    default void refused(String key, String message) {
        note(key, message);
    }

    /**
     * A call carried a tracing agent's context (remora.tracing): this client sent one ({@code sent}), or this server
     * handed one to the agent.
     */
    default void traceContext(boolean sent) {
    }

    /** A one-way call was sent ({@code future}: false) or a future call ({@code future}: true). */
    default void asyncCall(boolean future) {
    }

    /**
     * A {@code Remora.async} task ended: its call was sent without waiting ({@code captured}), or it made no call
     * Remora carries and ran synchronously.
     */
    default void asyncTask(boolean captured) {
    }

    /** {@code calls} held-back calls (one-way, and future with remora.future.batch) left in one write. */
    default void onewayBatch(int calls) {
    }

    /** {@code replies} replies to future calls, held back, left this server in one write (remora.future.batch). */
    default void replyBatch(int replies) {
    }

    /**
     * A one-way call's method threw {@code thrown} on this server: nobody waits for it, so the host logs it
     * (rate-limited) and counts it.
     */
    default void onewayFailed(String method, Throwable thrown) {
    }

    /**
     * A connection broke with {@code n} one-way calls the server had not confirmed; the next call to the endpoint
     * throws. Counted by the host.
     */
    default void onewayUnconfirmed(int n, String message) {
        note("oneway-unconfirmed", message);
    }

    /** Detail for {@code remora.log=debug} (which technology a connection uses, ...). */
    default void debug(String message) {
    }

    RouterListener NONE = new RouterListener() {
        @Override
        public void bytes(long out, long in) {
        }

        @Override
        public void note(String key, String message) {
        }
    };
}

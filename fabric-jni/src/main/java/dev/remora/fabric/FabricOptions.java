package dev.remora.fabric;

import java.nio.ByteOrder;

/**
 * Settings of a {@link FabricEndpoint}, immutable; start from {@link #defaults()} and change with the
 * {@code with*} methods. The agent maps its {@code remora.fabric.*} properties onto these.
 */
public final class FabricOptions {
    private static final FabricOptions DEFAULTS =
            new FabricOptions(20_000L, 200_000L, true, 1_000_000L, 30_000_000_000L, ByteOrder.BIG_ENDIAN, 50,
                    100_000_000L, 4L << 20);

    private final long spinNanos;
    private final long spinMaxNanos;
    private final boolean yield;
    private final long maxSleepNanos;
    private final long sendTimeoutNanos;
    private final ByteOrder receiveOrder;
    private final int busyPolls;
    private final long deepSleepNanos;
    private final long sendRingBytes;

    private FabricOptions(long spinNanos, long spinMaxNanos, boolean yield, long maxSleepNanos, long sendTimeoutNanos,
            ByteOrder receiveOrder, int busyPolls, long deepSleepNanos, long sendRingBytes) {
        if (spinNanos < 0 || spinMaxNanos < 0 || maxSleepNanos < 1_000 || sendTimeoutNanos <= 0
                || receiveOrder == null || busyPolls < 0 || deepSleepNanos < 1_000_000 || sendRingBytes < 0) {
            throw new IllegalArgumentException("spinNanos >= 0, spinMaxNanos >= 0, maxSleepNanos >= 1000, "
                    + "sendTimeoutNanos > 0, busyPolls >= 0, deepSleepNanos >= 1000000, sendRingBytes >= 0 and a byte "
                    + "order are required, got " + spinNanos + ", " + spinMaxNanos + ", " + maxSleepNanos + ", "
                    + sendTimeoutNanos + ", " + busyPolls + ", " + deepSleepNanos + ", " + sendRingBytes + ", "
                    + receiveOrder);
        }
        this.sendRingBytes = sendRingBytes;
        this.deepSleepNanos = deepSleepNanos;
        this.busyPolls = busyPolls;
        this.spinNanos = spinNanos;
        this.spinMaxNanos = spinMaxNanos;
        this.yield = yield;
        this.maxSleepNanos = maxSleepNanos;
        this.sendTimeoutNanos = sendTimeoutNanos;
        this.receiveOrder = receiveOrder;
    }

    /**
     * 50 pure polls, then polls with sched_yield up to 20 us (adapting up to 200 us), then naps up to 1 ms; deep
     * sleeps of at most 100 ms; send timeout 30 s; big-endian received buffers; a 4 MiB send ring.
     */
    public static FabricOptions defaults() {
        return DEFAULTS;
    }

    /** How long a waiting thread polls before it sleeps (0: sleep at once). */
    public long spinNanos() {
        return spinNanos;
    }

    /**
     * The most a wait may spin when it adapts its budget: twice what such waits (for a message, for a send's
     * completion) lately lasted, between {@link #spinNanos()} and this. Waits that end soon after the budget cost a
     * sleep and, on a VM whose idle vCPU halts, 30-60 us to wake; an RMI echo of byte[100000] keeps each side busy
     * about as long as a 20 us budget. At or below {@link #spinNanos()}: every wait spins {@link #spinNanos()}.
     */
    public long spinMaxNanos() {
        return spinMaxNanos;
    }

    /**
     * Polls without sched_yield before the yielding ones: a split-CPU round trip usually completes within them
     * (64 B Java round trip over shm on CPUs 1 and 0: 1.01 us with 50, 1.3-1.55 us with 0), while two peers on one CPU
     * lose at most these polls (7.0 us instead of 5.7 us on CPU 0 alone).
     */
    public int busyPolls() {
        return busyPolls;
    }

    /** Whether polling calls sched_yield between polls, so that a peer on the same CPU runs (default true). */
    public boolean yield() {
        return yield;
    }

    /** The longest nap between polls once spinning is over, for providers without a wait fd (shm). */
    public long maxSleepNanos() {
        return maxSleepNanos;
    }

    /**
     * The longest deep sleep of a receive that {@link FabricEndpoint#sleepDeeply()} allowed: a safety net, the
     * peer's bell ends it long before (at most 10 wake-ups a second by default).
     */
    public long deepSleepNanos() {
        return deepSleepNanos;
    }

    /**
     * Bytes of the send ring over shm (0: none): messages above the inject size and up to a quarter of it are staged
     * one after another in it rather than always in the same buffer, which the peer's kernel has just read (its CMA
     * copy) and which this CPU would first have to take back from the peer's cache: 100 KB took 11.5-13 us to stage
     * instead of 2.8-3.4 us. Default 4 MiB, allocated on the first such message.
     */
    public long sendRingBytes() {
        return sendRingBytes;
    }

    /** How long a send may wait for a peer that does not take its message before it fails. */
    public long sendTimeoutNanos() {
        return sendTimeoutNanos;
    }

    /** The byte order of the buffers {@link FabricEndpoint#received()} returns. */
    public ByteOrder receiveOrder() {
        return receiveOrder;
    }

    public FabricOptions withBusyPolls(int value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, maxSleepNanos, sendTimeoutNanos, receiveOrder,
                value, deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withSpinNanos(long value) {
        return new FabricOptions(value, spinMaxNanos, yield, maxSleepNanos, sendTimeoutNanos, receiveOrder,
                busyPolls, deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withSpinMaxNanos(long value) {
        return new FabricOptions(spinNanos, value, yield, maxSleepNanos, sendTimeoutNanos, receiveOrder, busyPolls,
                deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withYield(boolean value) {
        return new FabricOptions(spinNanos, spinMaxNanos, value, maxSleepNanos, sendTimeoutNanos, receiveOrder,
                busyPolls, deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withMaxSleepNanos(long value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, value, sendTimeoutNanos, receiveOrder, busyPolls,
                deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withSendTimeoutNanos(long value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, maxSleepNanos, value, receiveOrder, busyPolls,
                deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withDeepSleepNanos(long value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, maxSleepNanos, sendTimeoutNanos, receiveOrder,
                busyPolls, value, sendRingBytes);
    }

    public FabricOptions withReceiveOrder(ByteOrder value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, maxSleepNanos, sendTimeoutNanos, value, busyPolls,
                deepSleepNanos, sendRingBytes);
    }

    public FabricOptions withSendRingBytes(long value) {
        return new FabricOptions(spinNanos, spinMaxNanos, yield, maxSleepNanos, sendTimeoutNanos, receiveOrder,
                busyPolls, deepSleepNanos, value);
    }

    @Override
    public String toString() {
        return "FabricOptions[spinNanos=" + spinNanos + ", spinMaxNanos=" + spinMaxNanos + ", yield=" + yield
                + ", maxSleepNanos=" + maxSleepNanos + ", sendTimeoutNanos=" + sendTimeoutNanos + ", receiveOrder="
                + receiveOrder + ", busyPolls=" + busyPolls + ", deepSleepNanos=" + deepSleepNanos + ", sendRingBytes="
                + sendRingBytes + "]";
    }
}

package dev.remora.fabric;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A message endpoint on a libfabric {@code FI_EP_RDM} endpoint: reliable, ordered per peer, message boundaries
 * kept, any size up to 2 GB.
 *
 * <p>Usage: {@link #open(String, FabricOptions)} on each side, exchange {@link #address()} out of band (Remora's
 * TCP handshake), {@link #insertPeer(byte[])} on both sides before the first message, then {@link #send} and
 * {@link #receive}. A message sent to a peer that has not inserted the sender arrives with source {@code -1}.
 *
 * <p>Design. Messages up to {@link #EAGER_SIZE} bytes are one tagged send: {@code fi_tinject} up to the
 * provider's inject size (no completion to wait for), {@code fi_tsend} above. Longer ones go as a first segment
 * carrying the total length and then continuation segments the receiver matches by exact tag, so the provider's
 * own rendezvous (CMA on shm) moves them into one buffer without further copies. The receiver keeps two
 * {@link #EAGER_SIZE} buffers posted: the message returned by {@link #receive} stays in its native buffer, which
 * {@link #received()} exposes without a copy, while the next message lands in the other. The 32-bit tag carries a
 * hash of the sender's address, which the receiver maps back to the handle {@link #insertPeer} gave it (so no
 * provider support for {@code FI_SOURCE} is needed: tcp;ofi_rxm has none). Waiting polls the completion queue with
 * {@code sched_yield} for {@link FabricOptions#spinNanos()} (peers sharing one CPU keep running), then sleeps:
 * on the queue's fd where the provider has one (tcp), else with doubling naps up to
 * {@link FabricOptions#maxSleepNanos()} (shm has no wait objects in libfabric 1.17), each with a timer slack of an
 * eighth of the nap instead of Linux's 50 us default (the thread's own slack is restored after). Naps cost an idle
 * receiver CPU forever, so a caller whose peer promises to ring before its next message (over the caller's own
 * channel) lets the receiver sleep until then: {@link #sleepDeeply()}, {@link #bell()}.
 *
 * <p>Threading: {@link #send} may be called from any thread (sends are serialised by an internal lock; a send
 * returns when the buffer may be reused, i.e. the message is delivered or buffered by the provider).
 * {@link #receive} is meant for one receiver thread; concurrent calls are serialised. {@link #close()} may be
 * called from any thread at any time: it wakes a blocked receive or send, which then throw
 * {@link java.nio.channels.AsynchronousCloseException}. The hot paths allocate nothing, but for the view a message
 * read from the peer's shared ring gets.
 *
 * <p>Shared rings (shm): {@link #createSharedRing()}, the peer's {@link #attachSharedRing}, then
 * {@link #enableSharedRing}: messages above the inject size and up to a quarter of the send ring are then written
 * into a ring in /dev/shm that the peer has mapped, and read there; libfabric carries a 16-byte descriptor instead of
 * moving them by the kernel's CMA copy (fabric-jni/README.md, "Shared rings").
 *
 * <p>Errors: every libfabric failure is an {@link IOException} naming the {@code fi_*} call and fi_strerror's text.
 * After a failed send or receive the endpoint is unusable (a peer may hold half a message): close it. A peer that
 * dies never crashes this process; sends to it fail after {@link FabricOptions#sendTimeoutNanos()}, and the
 * caller's liveness signal (Remora's TCP connection) should close the endpoint to fail pending calls at once.
 */
public final class FabricEndpoint implements Closeable {
    /** Largest message sent as a single segment; a protocol constant shared with the native side. */
    public static final int EAGER_SIZE = 256 * 1024;
    /** Returned by {@link #receive(long)} when no message arrived in time. */
    public static final int TIMEOUT = -1;

    private static final int SLOT_LARGE = 2;
    private static final int SLOT_SHARED = 3;

    private final long handle;
    private final String provider;
    private final FabricOptions options;
    private final byte[] address;
    private final int injectSize;
    private final ReentrantLock sendLock = new ReentrantLock();
    private final ReentrantLock receiveLock = new ReentrantLock();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ByteBuffer result = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
    private final ByteBuffer[] views = new ByteBuffer[4];
    private long largeGeneration = -1;
    private ByteBuffer current;
    private long currentSource = -1;
    private volatile boolean freed;
    private final boolean waitsOnFd;
    private final Object control = new Object(); // sleepDeeply and bell against close: never on a freed handle

    private volatile boolean spinOn = true;
    private boolean lostCpu; // the last receive's; guarded by receiveLock (read by the receiving thread)
    private long receiveYields; // as of the last receive; guarded by receiveLock

    private FabricEndpoint(long handle, FabricOptions options) {
        this.handle = handle;
        this.options = options;
        this.provider = FabricNative.providerName(handle);
        this.address = FabricNative.address(handle);
        this.injectSize = FabricNative.injectSize(handle);
        setWait(true);
        FabricNative.setSendRing(handle, options.sendRingBytes());
        this.waitsOnFd = FabricNative.waitsOnFd(handle);
        views[0] = FabricNative.buffer(handle, 0).order(options.receiveOrder());
        views[1] = FabricNative.buffer(handle, 1).order(options.receiveOrder());
    }

    private void setWait(boolean spin) {
        FabricNative.setWait(handle, spin ? options.spinNanos() : 0, spin ? options.spinMaxNanos() : 0, options.yield(),
                options.maxSleepNanos(), spin ? options.busyPolls() : 0, options.deepSleepNanos());
    }

    /**
     * Whether waits poll before they sleep ({@link FabricOptions#spinNanos()}, busy polls): off while the machine's
     * CPUs are wanted by the application, on again when they idle. Any thread may call it; a wait under way finishes
     * with the policy it read. Once the endpoint is closed it does nothing: the policy lives in the native endpoint,
     * which {@link #close()} frees (a receiving thread that set it after another thread's close wrote into freed
     * memory, and a JVM crashed later in code of its own that had reused it).
     *
     * @return whether the policy is {@code on} now (false once closed)
     */
    public boolean spin(boolean on) {
        if (on == spinOn && !freed) {
            return true;
        }
        synchronized (control) {
            if (freed) {
                return false;
            }
            if (on != spinOn) {
                spinOn = on;
                setWait(on);
            }
            return true;
        }
    }

    /**
     * Opens an endpoint.
     *
     * @param provider a libfabric provider name as {@link Fabric#providers()} lists it: "shm", "tcp;ofi_rxm", ...
     * @throws IOException naming the failing fi_* call, e.g. when the provider does not exist here
     * @throws UnsatisfiedLinkError if the native library is unavailable (see {@link Fabric#unavailabilityCause()})
     */
    public static FabricEndpoint open(String provider, FabricOptions options) throws IOException {
        Fabric.ensureAvailability();
        if (FabricNative.eagerSize() != EAGER_SIZE) {
            throw new IOException("libremora_fabric's eager size " + FabricNative.eagerSize() + " differs from "
                    + EAGER_SIZE + ": the native library and the jar come from different builds");
        }
        long handle = FabricNative.open(provider);
        try {
            return new FabricEndpoint(handle, options);
        } catch (RuntimeException | Error e) {
            FabricNative.close(handle);
            throw e;
        }
    }

    public static FabricEndpoint open(String provider) throws IOException {
        return open(provider, FabricOptions.defaults());
    }

    /** This endpoint's fabric address, to hand to the peer (a copy). */
    public byte[] address() {
        return address.clone();
    }

    /** The provider actually opened, e.g. "shm" or "tcp;ofi_rxm". */
    public String provider() {
        return provider;
    }

    /** Messages up to this size are sent with fi_tinject: no completion is awaited. */
    public int injectSize() {
        return injectSize;
    }

    public FabricOptions options() {
        return options;
    }

    /** Inserts a peer's address (from its {@link #address()}) and returns the handle to send to it with. */
    public long insertPeer(byte[] peerAddress) throws IOException {
        sendLock.lock();
        try {
            ensureOpen();
            return FabricNative.insert(handle, peerAddress);
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Makes this endpoint's shared ring (shm only; once, of {@link FabricOptions#sendRingBytes()}) and returns its
     * name for the peer's {@link #attachSharedRing}. Over shm, a message above the inject size otherwise travels by
     * the kernel's CMA copy out of this process; through the ring the peer reads it where it was staged, one copy
     * fewer each way. Then {@link #enableSharedRing} with the peer's answer.
     *
     * @return its name, or null when there is nothing to share: another provider than shm, or sendRingBytes 0
     * @throws IOException naming why it could not be made, e.g. /dev/shm refused it
     */
    public String createSharedRing() throws IOException {
        sendLock.lock();
        try {
            ensureOpen();
            if (!"shm".equals(provider) || options.sendRingBytes() == 0) {
                return null;
            }
            return FabricNative.sharedCreate(handle, options.sendRingBytes());
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Maps the peer's shared ring by the name its {@link #createSharedRing()} gave.
     *
     * @throws IllegalStateException if a receive is under way: map it before the first receive
     */
    public void attachSharedRing(String name) throws IOException {
        if (!receiveLock.tryLock()) {
            throw new IllegalStateException("attachSharedRing while a receive is under way: map the peer's ring "
                    + "before the first receive");
        }
        sendLock.lock();
        try {
            ensureOpen();
            FabricNative.sharedAttach(handle, name);
            views[SLOT_SHARED] = FabricNative.buffer(handle, SLOT_SHARED).order(options.receiveOrder());
        } finally {
            sendLock.unlock();
            receiveLock.unlock();
        }
    }

    /**
     * Unlinks this endpoint's shared ring's name and, when the peer has mapped it, sends through it from now on.
     * Call once the peer answered, whatever it answered, before the first send.
     */
    public void enableSharedRing(boolean peerMappedIt) {
        sendLock.lock();
        try {
            if (!closed.get() && !freed) {
                FabricNative.sharedEnable(handle, peerMappedIt);
            }
        } finally {
            sendLock.unlock();
        }
    }

    /** Whether sends go through this endpoint's shared ring, and whether the peer's is mapped. */
    public boolean sendsThroughSharedRing() {
        return sharedOn(1);
    }

    public boolean readsPeersSharedRing() {
        return sharedOn(2);
    }

    private boolean sharedOn(int bit) {
        sendLock.lock();
        try {
            return !closed.get() && !freed && (FabricNative.sharedOn(handle) & bit) != 0;
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Native memory this endpoint holds for messages beyond its two posted receive slots: the buffer a message above
     * {@link #EAGER_SIZE} was received into and the staging buffer one was sent from (each kept at the largest such
     * message so far, for the endpoint's life), and the send ring; not the shared rings. 0 once closed.
     */
    public long heldBytes() {
        sendLock.lock();
        try {
            return closed.get() || freed ? 0 : FabricNative.heldBytes(handle);
        } finally {
            sendLock.unlock();
        }
    }

    /** Forgets a peer; messages from it arrive with source -1 afterwards. */
    public void removePeer(long peer) throws IOException {
        sendLock.lock();
        try {
            ensureOpen();
            FabricNative.remove(handle, peer);
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Sends the remaining bytes of src (position to limit) as one message; src's position is not changed.
     * Direct buffers go to the provider as they are; heap buffers are copied once into a native staging buffer.
     */
    public void send(long peer, ByteBuffer src) throws IOException {
        send(peer, src, options.sendTimeoutNanos());
    }

    /** {@link #send(long, ByteBuffer)}, waiting at most timeoutNanos (not the options' send timeout) for the peer. */
    public void send(long peer, ByteBuffer src, long timeoutNanos) throws IOException {
        int pos = src.position();
        int len = src.limit() - pos;
        sendLock.lock();
        try {
            ensureOpen();
            if (src.isDirect()) {
                FabricNative.send(handle, peer, src, pos, len, timeoutNanos);
            } else if (src.hasArray()) {
                FabricNative.sendArray(handle, peer, null, 0, 0, src.array(), src.arrayOffset() + pos, len,
                        timeoutNanos);
            } else {
                throw new IOException("fi_tsend: read-only heap buffers are not supported: pass a direct buffer");
            }
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Sends header (position to limit, direct or null) followed by body[offset, offset + length) as one message.
     * Both are copied into a native staging buffer with one JNI copy each: the array is never pinned, since a send
     * may wait on the peer and a pinned (critical) array would hold up the garbage collector meanwhile.
     */
    public void send(long peer, ByteBuffer header, byte[] body, int offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset > body.length - length) {
            throw new IndexOutOfBoundsException("offset " + offset + ", length " + length + ", array " + body.length);
        }
        int hpos = header == null ? 0 : header.position();
        int hlen = header == null ? 0 : header.limit() - hpos;
        if (header != null && !header.isDirect()) {
            throw new IllegalArgumentException("the header must be a direct ByteBuffer");
        }
        sendLock.lock();
        try {
            ensureOpen();
            FabricNative.sendArray(handle, peer, header, hpos, hlen, body, offset, length, options.sendTimeoutNanos());
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * Sends pieces {@code 0..count-1} as one message, in order: piece i is {@code lengths[i]} bytes of primitive array
     * {@code arrays[i]} from byte {@code offsets[i]}, as the array lies in memory (native byte order). Each piece is
     * copied once into a native staging buffer; an array is held only for its copy, never while the send waits.
     */
    public void sendGather(long peer, Object[] arrays, int[] offsets, int[] lengths, int count) throws IOException {
        if (count < 0 || count > arrays.length || count > offsets.length || count > lengths.length) {
            throw new IndexOutOfBoundsException("count " + count);
        }
        long total = 0;
        for (int i = 0; i < count; i++) {
            int size = elementSize(arrays[i]);
            long bytes = (long) java.lang.reflect.Array.getLength(arrays[i]) * size;
            if (offsets[i] < 0 || lengths[i] < 0 || offsets[i] + (long) lengths[i] > bytes
                    || offsets[i] % size != 0 || lengths[i] % size != 0) {
                throw new IndexOutOfBoundsException("piece " + i + ": offset " + offsets[i] + ", length "
                        + lengths[i] + " in an array of " + bytes + " bytes");
            }
            total += lengths[i];
        }
        if (total > Integer.MAX_VALUE) {
            throw new IOException("fi_tsend: a message of " + total + " bytes is too long");
        }
        sendLock.lock();
        try {
            ensureOpen();
            FabricNative.sendGather(handle, peer, arrays, offsets, lengths, count, options.sendTimeoutNanos());
        } finally {
            sendLock.unlock();
        }
    }

    /**
     * The element size in bytes of a primitive array: the unit {@link #sendGather}'s pieces are counted in (an offset
     * or length that is not a multiple of it is refused).
     */
    public static int elementSize(Object a) {
        if (a instanceof byte[] || a instanceof boolean[]) {
            return 1;
        } else if (a instanceof int[] || a instanceof float[]) {
            return 4;
        } else if (a instanceof long[] || a instanceof double[]) {
            return 8;
        } else if (a instanceof short[] || a instanceof char[]) {
            return 2;
        }
        throw new IllegalArgumentException("not a primitive array: " + (a == null ? "null" : a.getClass().getName()));
    }

    /**
     * Waits for the next message, at most timeoutNanos (negative: until a message arrives or the endpoint is
     * closed). Returns its length, or {@link #TIMEOUT}. The message is then in {@link #received()}, valid until the
     * next call of receive; {@link #receivedSource()} is its sender; {@link #lostCpu()} says whether its spin lost the
     * CPU.
     */
    public int receive(long timeoutNanos) throws IOException {
        receiveLock.lock();
        try {
            ensureOpen();
            long length = FabricNative.receive(handle, timeoutNanos, result);
            lostCpu = result.getLong(48) != 0;
            receiveYields = result.getLong(56);
            if (length < 0) {
                return TIMEOUT;
            }
            int slot = (int) result.getLong(16);
            if (slot == SLOT_SHARED) { // where it lies in the peer's ring: a view of it (one small object)
                current = views[SLOT_SHARED].slice((int) result.getLong(40), (int) length)
                        .order(options.receiveOrder());
            } else {
                if (slot == SLOT_LARGE) {
                    long generation = result.getLong(24);
                    if (generation != largeGeneration) {
                        views[SLOT_LARGE] = FabricNative.buffer(handle, SLOT_LARGE).order(options.receiveOrder());
                        largeGeneration = generation;
                    }
                }
                current = views[slot];
                current.limit((int) length).position(0);
            }
            currentSource = result.getLong(8);
            return (int) length;
        } finally {
            receiveLock.unlock();
        }
    }

    /**
     * Whether the last {@link #receive}, message or timeout, stopped spinning because a yield lost the CPU for half a
     * millisecond or more: another thread on this CPU runs for whole scheduler slices (a JIT compiler busy
     * recompiling), so spinning in the next waits would hand it a slice each time. The receiving thread's.
     */
    public boolean lostCpu() {
        return lostCpu;
    }

    /**
     * How many times this endpoint's receives so far gave up the CPU with {@code sched_yield}, as of the last
     * {@link #receive}: while they spin, and once before a receive sleeps when {@link #spin} is off (none for a while
     * after yields lost the CPU). The receiving thread's (diagnostics and tests).
     */
    public long receiveYields() {
        return receiveYields;
    }

    /**
     * The last received message, position 0 and limit its length, in {@link FabricOptions#receiveOrder()}. A view
     * of native memory that the next {@link #receive} reuses: read it (or copy it) before receiving again.
     */
    public ByteBuffer received() {
        return current;
    }

    /**
     * Keeps {@link #close()}, from any thread, from freeing or unmapping the memory of {@link #received()} until
     * {@link #releaseReceived()}: a view of native memory read after a close on another thread would read freed
     * memory, or fault on an unmapped ring. The receiving thread calls it after {@link #receive}, reads the message,
     * then releases it (in a finally).
     *
     * @return false when the endpoint was closed meanwhile (nothing held, the message is gone)
     */
    public boolean holdReceived() {
        receiveLock.lock();
        if (freed) {
            receiveLock.unlock();
            return false;
        }
        return true;
    }

    /** Ends {@link #holdReceived()}. */
    public void releaseReceived() {
        receiveLock.unlock();
    }

    /** The peer handle of the last received message's sender, or -1 if that peer was not inserted. */
    public long receivedSource() {
        return currentSource;
    }

    /**
     * Whether a waiting receive sleeps on the provider's completion-queue fd (tcp), which costs nothing while idle,
     * rather than in naps (shm), which cost about 1.5 % of a CPU per idle receiver: only the latter need
     * {@link #sleepDeeply()}.
     */
    public boolean waitsOnFd() {
        return waitsOnFd;
    }

    /**
     * Lets {@link #receive} sleep on an eventfd, once it has spun and napped as usual, until {@link #bell()} (or
     * {@link FabricOptions#deepSleepNanos()}) instead of napping on. Call it only when the peer has promised to ring
     * before its next message: a message sent without the bell waits for the end of the sleep. Any thread; does
     * nothing once closed.
     */
    public void sleepDeeply() {
        synchronized (control) {
            if (!freed) {
                FabricNative.sleepDeeply(handle);
            }
        }
    }

    /**
     * The peer's bell: withdraws {@link #sleepDeeply()} and wakes a receive sleeping deeply, which then polls for the
     * message that follows the bell. Any thread; does nothing once closed.
     */
    public void bell() {
        synchronized (control) {
            if (!freed) {
                FabricNative.bell(handle);
            }
        }
    }

    public boolean isOpen() {
        return !closed.get();
    }

    /**
     * Closes the endpoint and frees every native resource. Safe from any thread and idempotent: a blocked
     * {@link #receive} or {@link #send} is woken and throws {@link java.nio.channels.AsynchronousCloseException}.
     */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        FabricNative.wakeup(handle);
        sendLock.lock();
        receiveLock.lock();
        try {
            synchronized (control) {
                freed = true;
            }
            current = null;
            views[0] = views[1] = views[2] = views[3] = null;
            FabricNative.close(handle);
        } finally {
            receiveLock.unlock();
            sendLock.unlock();
        }
    }

    /**
     * At JVM exit: marks this endpoint closed and wakes a blocked receive or send, which then end with a
     * {@link ClosedChannelException}; unlike {@link #close()} it waits for no thread and frees nothing (a later close
     * does nothing), since the process is about to end.
     */
    public void wakeForExit() {
        if (closed.compareAndSet(false, true)) {
            FabricNative.wakeup(handle);
        }
    }

    private void ensureOpen() throws ClosedChannelException {
        if (closed.get() || freed) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public String toString() {
        return "FabricEndpoint[" + provider + (closed.get() ? ", closed]" : "]");
    }
}

package dev.remora.fabric;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The JNI entry points of {@code libremora_fabric_<arch>.so}, registered by its {@code JNI_OnLoad} (see
 * {@code src/main/c/remora_fabric_jni.c}). Handles are {@code rf_ep} pointers; callers in this package guarantee
 * that a handle is never used after {@link #close(long)}. Failures throw {@link IOException} whose message names
 * the failing {@code fi_*} call and {@code fi_strerror}'s text; {@link java.nio.channels.AsynchronousCloseException}
 * after {@link #wakeup(long)}.
 */
final class FabricNative {
    /** Must match RF_JNI_ABI_VERSION in remora_fabric_jni.c: a stale .so on java.library.path is refused. */
    static final int ABI_VERSION = 6;

    private FabricNative() {}

    static native int abiVersion();

    /**
     * Opens libfabric.so.1 with dlopen (the library is not linked against it, so that libfabric's dependencies
     * cannot replace the JVM's SIGSEGV handler); null on success, else why libfabric is unusable.
     */
    static native String init();

    static native String libfabricVersion();

    /** Provider names offering tagged RDM endpoints, one per line. */
    static native String providers() throws IOException;

    static native long open(String provider) throws IOException;

    static native void setWait(long ep, long spinNanos, long spinMaxNanos, boolean yield, long maxSleepNanos,
            int busyPolls, long deepSleepNanos);

    /** Bytes of the endpoint's send ring (rf_set_send_ring); 0: one staging buffer. */
    static native void setSendRing(long ep, long bytes);

    static native boolean waitsOnFd(long ep);

    static native void sleepDeeply(long ep);

    static native void bell(long ep);

    static native byte[] address(long ep);

    static native String providerName(long ep);

    static native int injectSize(long ep);

    static native int eagerSize();

    static native long insert(long ep, byte[] address) throws IOException;

    static native void remove(long ep, long peer) throws IOException;

    static native void send(long ep, long peer, ByteBuffer direct, int offset, int length, long timeoutNanos)
            throws IOException;

    static native void sendArray(long ep, long peer, ByteBuffer header, int headerOffset, int headerLength,
            byte[] body, int bodyOffset, int bodyLength, long timeoutNanos) throws IOException;

    static native void sendGather(long ep, long peer, Object[] arrays, int[] offsets, int[] lengths, int count,
            long timeoutNanos) throws IOException;

    /** Message length, or -1 on timeout; the rf_msg struct (5 native-order longs) is written into result. */
    static native long receive(long ep, long timeoutNanos, ByteBuffer result) throws IOException;

    static native ByteBuffer buffer(long ep, int slot);

    static native void wakeup(long ep);

    static native void close(long ep);

    static native String sharedCreate(long ep, long bytes) throws IOException;

    static native void sharedAttach(long ep, String name) throws IOException;

    static native void sharedEnable(long ep, boolean enable);

    static native int sharedOn(long ep);

    static native long heldBytes(long ep);
}

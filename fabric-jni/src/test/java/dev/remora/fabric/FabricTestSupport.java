package dev.remora.fabric;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.ByteBuffer;

/** Shared helpers: skipping when libfabric is missing, patterned buffers. */
final class FabricTestSupport {
    private FabricTestSupport() {}

    /** Skips the calling test (with the reason) unless the transport and the provider are available here. */
    static void assumeProvider(String provider) {
        assumeTrue(Fabric.isAvailable(), () -> "fabric transport unavailable, test skipped: "
                + Fabric.unavailabilityCause().getMessage());
        assumeTrue(Fabric.providers().contains(provider), () -> "libfabric provider " + provider
                + " not present here (have " + Fabric.providers() + "), test skipped");
    }

    static ByteBuffer pattern(int size, int seed) {
        ByteBuffer b = ByteBuffer.allocateDirect(size);
        long x = seed * 0x9E3779B97F4A7C15L + 1;
        int i = 0;
        for (; i + 8 <= size; i += 8) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
            b.putLong(i, x);
        }
        for (; i < size; i++) {
            b.put(i, (byte) (seed + i));
        }
        return b;
    }
}

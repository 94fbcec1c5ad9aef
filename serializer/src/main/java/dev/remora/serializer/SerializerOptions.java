package dev.remora.serializer;

import java.util.Objects;

/**
 * Settings of one stream pair, as plain values: this module reads no system property (the agent maps
 * {@code remora.typecache} and friends onto these). Immutable; {@code with*} methods return a copy.
 */
public final class SerializerOptions {

    /** Connection-level type cache, JDK class resolution, limits sized for RMI calls. */
    public static final SerializerOptions DEFAULTS = new SerializerOptions(TypeCacheMode.CONNECTION,
            ClassResolver.latestUserDefinedLoader(), 4096, 64 * 1024, 100_000, 1024, 256, true);

    private final TypeCacheMode typeCache;
    private final ClassResolver resolver;
    private final int maxDepth;
    private final int maxDescriptorBytes;
    private final int maxTypes;
    private final int initialBufferSize;
    private final int maxClassNameLength;
    private final boolean boundArrays;

    private SerializerOptions(TypeCacheMode typeCache, ClassResolver resolver, int maxDepth, int maxDescriptorBytes,
                              int maxTypes, int initialBufferSize, int maxClassNameLength, boolean boundArrays) {
        this.boundArrays = boundArrays;
        this.typeCache = Objects.requireNonNull(typeCache, "typeCache");
        this.resolver = Objects.requireNonNull(resolver, "resolver");
        this.maxDepth = positive(maxDepth, "maxDepth");
        this.maxDescriptorBytes = positive(maxDescriptorBytes, "maxDescriptorBytes");
        this.maxTypes = positive(maxTypes, "maxTypes");
        this.initialBufferSize = positive(initialBufferSize, "initialBufferSize");
        this.maxClassNameLength = positive(maxClassNameLength, "maxClassNameLength");
    }

    private static int positive(int v, String name) {
        if (v <= 0) {
            throw new IllegalArgumentException(name + " must be > 0, got " + v);
        }
        return v;
    }

    public TypeCacheMode typeCache() {
        return typeCache;
    }

    public ClassResolver resolver() {
        return resolver;
    }

    /** Deepest nesting of objects a reader accepts (a deeper stream fails with an InvalidObjectException). */
    public int maxDepth() {
        return maxDepth;
    }

    /** Largest type descriptor accepted from the peer, in bytes (descriptors are untrusted input). */
    public int maxDescriptorBytes() {
        return maxDescriptorBytes;
    }

    /** Most distinct types one connection may describe. */
    public int maxTypes() {
        return maxTypes;
    }

    public int initialBufferSize() {
        return initialBufferSize;
    }

    /** Longest class name accepted from the peer, in bytes of UTF-8. */
    public int maxClassNameLength() {
        return maxClassNameLength;
    }

    public SerializerOptions withTypeCache(TypeCacheMode mode) {
        return new SerializerOptions(mode, resolver, maxDepth, maxDescriptorBytes, maxTypes, initialBufferSize,
                maxClassNameLength, boundArrays);
    }

    public SerializerOptions withResolver(ClassResolver r) {
        return new SerializerOptions(typeCache, r, maxDepth, maxDescriptorBytes, maxTypes, initialBufferSize,
                maxClassNameLength, boundArrays);
    }

    public SerializerOptions withMaxDepth(int d) {
        return new SerializerOptions(typeCache, resolver, d, maxDescriptorBytes, maxTypes, initialBufferSize,
                maxClassNameLength, boundArrays);
    }

    public SerializerOptions withMaxDescriptorBytes(int n) {
        return new SerializerOptions(typeCache, resolver, maxDepth, n, maxTypes, initialBufferSize,
                maxClassNameLength, boundArrays);
    }

    public SerializerOptions withMaxTypes(int n) {
        return new SerializerOptions(typeCache, resolver, maxDepth, maxDescriptorBytes, n, initialBufferSize,
                maxClassNameLength, boundArrays);
    }

    public SerializerOptions withInitialBufferSize(int n) {
        return new SerializerOptions(typeCache, resolver, maxDepth, maxDescriptorBytes, maxTypes, n,
                maxClassNameLength, boundArrays);
    }

    /**
     * When true (default) the reader installs, as its stream filter, a guard that rejects any array length above
     * 8 bytes' worth of what is left in the message, then asks the effective JDK filter. That guard also covers the
     * arrays JDK classes size from stream values in their readObject (HashMap, ArrayList... through the filter's
     * checkArray), which a plain ObjectInputStream bounds only when a filter is configured. Per-stream filters are
     * then set with {@link RemoraObjectInput#setStreamFilter}, as {@code setObjectInputFilter} may run once.
     */
    public boolean boundArraysByMessage() {
        return boundArrays;
    }

    public SerializerOptions withBoundArraysByMessage(boolean b) {
        return new SerializerOptions(typeCache, resolver, maxDepth, maxDescriptorBytes, maxTypes, initialBufferSize,
                maxClassNameLength, b);
    }

    @Override
    public String toString() {
        return "SerializerOptions[typeCache=" + typeCache + ", maxDepth=" + maxDepth + ", maxDescriptorBytes="
                + maxDescriptorBytes + ", maxTypes=" + maxTypes + "]";
    }
}

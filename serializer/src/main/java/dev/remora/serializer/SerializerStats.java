package dev.remora.serializer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Process-wide counters of how classes were handled, for the agent's {@code remora.stats} report. Counted once per
 * class slot (never per object): how its fields are reached and whether a codec was generated.
 */
public final class SerializerStats {
    static final AtomicLong SLOTS_LOOKUP = new AtomicLong();
    static final AtomicLong SLOTS_UNSAFE = new AtomicLong();
    static final AtomicLong SLOTS_JDK_DEFAULT = new AtomicLong();
    static final AtomicLong SLOTS_UNREACHABLE = new AtomicLong();
    static final AtomicLong CODECS_GENERATED = new AtomicLong();
    static final AtomicLong CODEC_FAILURES = new AtomicLong();

    private SerializerStats() {
    }

    static void slot(int access, boolean generated, boolean failed) {
        switch (access) {
            case Slot.ACCESS_LOOKUP: SLOTS_LOOKUP.incrementAndGet(); break;
            case Slot.ACCESS_UNSAFE: SLOTS_UNSAFE.incrementAndGet(); break;
            case Slot.ACCESS_JDK_DEFAULT: SLOTS_JDK_DEFAULT.incrementAndGet(); break;
            default: SLOTS_UNREACHABLE.incrementAndGet(); break;
        }
        codec(generated, failed);
    }

    /** A codec generated for a slot, or its generation failed (the slot keeps a slower path). */
    static void codec(boolean generated, boolean failed) {
        if (generated) {
            CODECS_GENERATED.incrementAndGet();
        }
        if (failed) {
            CODEC_FAILURES.incrementAndGet();
        }
    }

    /** Class slots whose fields a generated codec copies. */
    public static long codecsGenerated() {
        return CODECS_GENERATED.get();
    }

    /** Class slots served by the JDK 24+ putFields/readFields fallback (fields not reachable otherwise). */
    public static long jdkDefaultFallbacks() {
        return SLOTS_JDK_DEFAULT.get();
    }

    /** Class slots whose fields could not be reached at all (writing such an object fails naming the fix). */
    public static long unreachable() {
        return SLOTS_UNREACHABLE.get();
    }

    /** One line for a stats report. */
    public static String summary() {
        return "serializer: class slots via lookup=" + SLOTS_LOOKUP.get() + " unsafe=" + SLOTS_UNSAFE.get()
                + " jdk-default=" + SLOTS_JDK_DEFAULT.get() + " unreachable=" + SLOTS_UNREACHABLE.get()
                + ", codecs generated=" + CODECS_GENERATED.get() + " failed=" + CODEC_FAILURES.get();
    }
}

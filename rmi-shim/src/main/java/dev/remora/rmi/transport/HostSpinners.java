package dev.remora.rmi.transport;

import dev.remora.rmi.jdk.SystemThreads;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How many of Remora's waiters are spinning right now in the other JVMs of this user on this host, so that
 * {@link CpuWatch} does not take them for application threads that want a CPU: two Remora JVMs sharing a CPU (a
 * client and its server, a callback's caller and its reader) otherwise each saw the other's waiters as a busy
 * machine, stopped spinning and napped (same-CPU fabric pingpong: 51-53 µs a call instead of about 20).
 *
 * <p>A small file in {@code /dev/shm}, {@code remora-spinners-<uid>}, mapped by every Remora JVM of the user: a slot
 * per JVM, {@code [pid, count]} as two native-order ints. A JVM claims a free slot (pid 0) or one whose process is
 * gone, and adds to its own count; readers sum the other slots. A JVM that dies while counted leaves its count
 * behind until a reader finds its process gone (checked at most once a second), so a crash can make waits spin a
 * little more, never wrong. The file is used only if it is a regular file owned by this user and nobody else may
 * read or write it; otherwise, or without {@code /dev/shm}, each JVM counts only its own waiters, as before.
 */
public final class HostSpinners {
    static final int SLOTS = 128;
    private static final int BYTES = SLOTS * 8;
    /** A count above this is not a real count (a torn or foreign file): ignored. */
    private static final int MAX_COUNT = 4096;
    private static final long LIVENESS_NANOS = 1_000_000_000L;
    /** Whether java.base exports jdk.internal.misc to Remora: then the ints are reached by {@link MappedInts}. */
    static final boolean UNSAFE = Object.class.getModule().isExported("jdk.internal.misc",
            HostSpinners.class.getModule());

    /** Counts nothing: no shared file. */
    private static final HostSpinners NONE = new HostSpinners(null, null, -1);
    /** This JVM's, in /dev/shm, once opened ({@link #jvm}); counts nothing when the file cannot be used. */
    private static volatile HostSpinners jvm;
    private static final AtomicBoolean OPENING = new AtomicBoolean();

    private final MappedByteBuffer map; // the file as a buffer (before JDK 22, or without UNSAFE), else null
    private final MappedInts ints; // with UNSAFE, the file by address, else null
    private final boolean shared; // false: no shared file
    private final int slot; // byte offset of this JVM's slot
    private final int[] gone = new int[SLOTS]; // per slot, the pid found gone there (this reader's view), or 0
    private long nextLivenessCheck = System.nanoTime();

    private HostSpinners(MappedByteBuffer map, MappedInts ints, int slot) {
        this.map = map;
        this.ints = ints;
        this.slot = slot;
        this.shared = map != null || ints != null;
    }

    /**
     * This JVM's count in the shared file, or one that counts nothing until a daemon thread, started by the first
     * ask, has opened the file. Opening it (the process handle, the file's owner and permissions, the mapping) took
     * 5-10 ms of a fresh JVM pair's first call on each side when the first wait did it. A waiter keeps the instance
     * it counted itself in ({@link CpuWatch#spinning}), so a count added before the file was open is not taken from
     * it after.
     */
    static HostSpinners jvm() {
        HostSpinners h = jvm;
        if (h != null) {
            return h;
        }
        if (OPENING.compareAndSet(false, true)) {
            SystemThreads.newThread(new Runnable() { // a class, not a lambda: nothing spun on a first call's path
                @Override
                public void run() {
                    HostSpinners opened = NONE;
                    try {
                        opened = open(Path.of("/dev/shm"), selfPid());
                    } finally {
                        jvm = opened;
                    }
                }
            }, "remora-spinners-open", true).start();
        }
        return NONE;
    }

    /** The shared file in {@code dir}, with a slot claimed for process {@code pid}; one that counts nothing if not. */
    static HostSpinners open(Path dir, long pid) {
        try {
            int uid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
            Path file = dir.resolve("remora-spinners-" + uid);
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(
                        EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
            } catch (FileAlreadyExistsException e) {
                // made by another JVM (or another user: checked below)
            }
            if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)
                    || (Integer) Files.getAttribute(file, "unix:uid", LinkOption.NOFOLLOW_LINKS) != uid) {
                return NONE;
            }
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file, LinkOption.NOFOLLOW_LINKS);
            for (PosixFilePermission p : perms) {
                if (p != PosixFilePermission.OWNER_READ && p != PosixFilePermission.OWNER_WRITE) {
                    return NONE; // others could forge counts: not used
                }
            }
            MappedByteBuffer m = null;
            MappedInts ints = null;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS)) {
                if (UNSAFE && Segment.MAP != null) {
                    ints = Segment.map(ch);
                }
                if (ints == null) {
                    m = ch.map(FileChannel.MapMode.READ_WRITE, 0, BYTES); // grows the file to BYTES (zeros) if shorter
                    ints = UNSAFE ? new MappedInts(m) : null;
                }
            }
            HostSpinners h = new HostSpinners(m, ints, 0); // the file, to claim a slot
            int self = (int) pid;
            for (int i = 0; i < SLOTS; i++) {
                int off = i * 8;
                int p = h.get(off);
                if ((p == 0 || p == self || !alive(p)) && h.compareAndSet(off, p, self)) {
                    h.set(off + 4, 0);
                    return new HostSpinners(m, h.ints, off);
                }
            }
            return NONE; // every slot taken by a live JVM
        } catch (IOException | RuntimeException | Error e) {
            return NONE;
        }
    }

    /** Whether the file is in use (false: only this JVM's own waiters are known). */
    boolean shared() {
        return shared;
    }

    /** This JVM's spinning waiters change by {@code delta}. */
    void add(int delta) {
        if (shared) {
            getAndAdd(slot + 4, delta);
        }
    }

    /** The spinning waiters of the other JVMs; called by one thread at a time ({@link CpuWatch}'s sampler). */
    int others() {
        if (!shared) {
            return 0;
        }
        long now = System.nanoTime();
        boolean check = now - nextLivenessCheck >= 0;
        if (check) {
            nextLivenessCheck = now + LIVENESS_NANOS;
        }
        int sum = 0;
        for (int i = 0; i < SLOTS; i++) {
            int off = i * 8;
            if (off == slot) {
                continue;
            }
            int p = get(off);
            if (p == 0) {
                continue;
            }
            int c = get(off + 4);
            if (c <= 0 || c > MAX_COUNT) {
                continue;
            }
            if (check) {
                gone[i] = alive(p) ? 0 : p;
            }
            if (gone[i] != p) {
                sum += c;
            }
        }
        return sum;
    }

    private int get(int off) {
        return ints != null ? ints.getVolatile(off) : (int) ByHandle.INT.getVolatile(map, off);
    }

    private void set(int off, int v) {
        if (ints != null) {
            ints.setVolatile(off, v);
        } else {
            ByHandle.INT.setVolatile(map, off, v);
        }
    }

    private boolean compareAndSet(int off, int expected, int v) {
        return ints != null ? ints.compareAndSet(off, expected, v) : ByHandle.INT.compareAndSet(map, off, expected, v);
    }

    private void getAndAdd(int off, int delta) {
        if (ints != null) {
            ints.getAndAdd(off, delta);
        } else {
            ByHandle.INT.getAndAdd(map, off, delta);
        }
    }

    /** The mapping's kind, for tests: "segment", "buffer" or "none". */
    String mappedAs() {
        return !shared ? "none" : map == null ? "segment" : "buffer";
    }

    /**
     * JDK 22+: the file mapped as a memory segment ({@code FileChannel.map(MapMode, long, long, Arena)}), reached by
     * address through {@link MappedInts}. {@code FileChannel.map} to a {@code MappedByteBuffer} makes the buffer with
     * a reflective constructor call, which since JDK 18 is built on method handles: in a fresh JDK 25 JVM that call
     * spun 25 {@code LambdaForm} classes and took 27 ms of CPU, this path 13 ms (three method handles, since this
     * module is compiled for 17 and cannot name {@code java.lang.foreign}). Null handles before JDK 22.
     */
    private static final class Segment {
        static final MethodHandle AUTO;
        static final MethodHandle MAP;
        static final MethodHandle ADDRESS;

        static {
            MethodHandle auto = null;
            MethodHandle map = null;
            MethodHandle address = null;
            if (Runtime.version().feature() >= 22) {
                try {
                    Class<?> arena = Class.forName("java.lang.foreign.Arena");
                    Class<?> segment = Class.forName("java.lang.foreign.MemorySegment");
                    MethodHandles.Lookup l = MethodHandles.publicLookup();
                    auto = l.findStatic(arena, "ofAuto", MethodType.methodType(arena))
                            .asType(MethodType.methodType(Object.class));
                    map = l.findVirtual(FileChannel.class, "map", MethodType.methodType(segment,
                            FileChannel.MapMode.class, long.class, long.class, arena))
                            .asType(MethodType.methodType(Object.class, FileChannel.class, FileChannel.MapMode.class,
                                    long.class, long.class, Object.class));
                    address = l.findVirtual(segment, "address", MethodType.methodType(long.class))
                            .asType(MethodType.methodType(long.class, Object.class));
                } catch (ReflectiveOperationException | RuntimeException e) {
                    auto = null;
                    map = null;
                    address = null;
                }
            }
            AUTO = auto;
            MAP = map;
            ADDRESS = address;
        }

        /** The file's first {@code BYTES} (the file grown to that, zeros, if shorter); null if this fails. */
        static MappedInts map(FileChannel ch) {
            try {
                // an automatic arena: unmapped once the segment, which MappedInts keeps, is unreachable
                Object segment = (Object) MAP.invokeExact(ch, FileChannel.MapMode.READ_WRITE, 0L, (long) BYTES,
                        (Object) AUTO.invokeExact());
                return new MappedInts(segment, (long) ADDRESS.invokeExact(segment));
            } catch (Throwable t) {
                return null; // the buffer, as before JDK 22
            }
        }
    }

    /** The ints without {@link #UNSAFE}: a var handle, made only then (its first use spins classes, see MappedInts). */
    private static final class ByHandle {
        static final VarHandle INT = MethodHandles.byteBufferViewVarHandle(int[].class, ByteOrder.nativeOrder());
    }

    /**
     * This process's id, read from {@code /proc/self}: {@code ProcessHandle}'s first use took 5.5 ms of CPU on JDK 17
     * and 7.5 ms on 25 (its class's set-up and lambdas), this 0.7 and 1.4 ms.
     */
    private static long selfPid() {
        try {
            return Long.parseLong(Files.readSymbolicLink(Path.of("/proc/self")).getFileName().toString());
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.current().pid();
        }
    }

    /** Whether process {@code pid} exists: its directory in {@code /proc} (a zombie's too, until it is reaped). */
    private static boolean alive(int pid) {
        return Files.isDirectory(Path.of("/proc", Integer.toString(pid)));
    }
}

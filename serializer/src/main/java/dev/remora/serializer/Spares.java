package dev.remora.serializer;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Arrays made ahead of time for the long primitive arrays a connection keeps receiving: one connection's, shared by
 * its readers ({@link RemoraObjectInput#spares(Spares)}).
 *
 * <p>Why: a received {@code byte[100000]} must be a new array, and a new array lies in memory the caches have not
 * seen lately: making it and filling it cost 5.5-6.5 us here against 1.8 us for filling an array made earlier. The
 * thread that is about to wait for a connection's next message ({@link #prepare()}, called by the transport before
 * it blocks) makes, while it would only wait, arrays of the kinds and lengths the last two messages both carried;
 * the next message's reader takes them ({@link #take}) instead of allocating. An RMI echo of byte[100000] over shm
 * took 38-41 us with them against 49-54 us without (split placement, JDK 25). Nothing changes for the
 * application: each array is new and handed out once. A message that does not match costs one array made in vain,
 * made while the thread waited anyway.
 *
 * <p>Bounds: only arrays of at least {@link #MIN_BYTES}, at most {@link #MAX} per message; all connections of the JVM
 * together hold at most the budget given (and never more than 1/32 of the heap's maximum) in arrays made ahead;
 * an {@link OutOfMemoryError} while making one drops them all and stops making them on this connection.
 *
 * <p>Threading: {@link #begin}, {@link #take} and {@link #prepare} run on the connection's reading thread, one at a
 * time (the reading thread may change, with a happens-before edge); {@link #drop()} may come from any thread.
 */
public final class Spares {
    /** Smaller arrays are made when read: the cache keeps up with them. */
    public static final int MIN_BYTES = 16 * 1024;
    /** Long arrays per message that get one made ahead. */
    static final int MAX = 2;
    /** Bytes held in arrays made ahead, by every connection of this JVM together. */
    private static final AtomicLong HELD = new AtomicLong();

    private final long budget;
    // the long arrays of the message being read (kind, length), and of the last one read
    private final char[] code = new char[MAX];
    private final int[] len = new int[MAX];
    private int count;
    private boolean overflow;
    private boolean open;
    private final char[] lastCode = new char[MAX];
    private final int[] lastLen = new int[MAX];
    private int lastCount = -1;
    private boolean repeated; // the last two messages carried the same long arrays
    // arrays made ahead for positions 0..MAX-1 of the next message
    private final Object[] ready = new Object[MAX];
    private final long[] readyBytes = new long[MAX];
    private volatile boolean active; // a long array was ever read: prepare has work
    private boolean disabled;
    private long taken;

    /** @param budgetBytes most bytes all connections of the JVM hold in arrays made ahead; 0: none */
    public Spares(long budgetBytes) {
        this.budget = Math.min(Math.max(0, budgetBytes), Runtime.getRuntime().maxMemory() / 32);
    }

    /** Bytes held in arrays made ahead by every connection of this JVM (tests, stats). */
    public static long held() {
        return HELD.get();
    }

    /** Arrays this connection's readers took instead of allocating them (tests, stats). */
    public synchronized long taken() {
        return taken;
    }

    /** Whether {@code cc} is the component code of a primitive array. */
    static boolean primitive(char cc) {
        return Bytes.size(cc) != 0;
    }

    /** A message starts. */
    synchronized void begin() {
        finish();
        open = true;
    }

    /**
     * The reader needs a primitive array of kind {@code cc} and {@code n} elements, at least {@link #MIN_BYTES}
     * long: one made ahead for this place in the message, or null (the reader makes one).
     */
    synchronized Object take(char cc, int n) {
        active = true;
        int p = count;
        if (p >= MAX) {
            overflow = true;
            return null;
        }
        code[p] = cc;
        len[p] = n;
        count = p + 1;
        Object s = ready[p];
        if (s == null || !fits(s, cc, n)) { // made for another kind or length: the next prepare lets it go
            return null;
        }
        unready(p);
        taken++;
        return s;
    }

    /**
     * The reading thread is about to wait for the next message: if the last two messages carried the same long
     * arrays, make what is missing of them (within the budget); otherwise let go of what was made.
     */
    public void prepare() {
        if (active) {
            prepareNow();
        }
    }

    private synchronized void prepareNow() {
        finish();
        if (!repeated || disabled) {
            release();
            return;
        }
        for (int i = 0; i < MAX; i++) {
            Object s = ready[i];
            boolean wanted = i < lastCount;
            if (s != null && (!wanted || !fits(s, lastCode[i], lastLen[i]))) {
                unready(i);
                s = null;
            }
            if (s == null && wanted) {
                long bytes = (long) lastLen[i] * Bytes.size(lastCode[i]);
                if (HELD.addAndGet(bytes) > budget) {
                    HELD.addAndGet(-bytes);
                    continue;
                }
                try {
                    ready[i] = make(lastCode[i], lastLen[i]);
                    readyBytes[i] = bytes;
                } catch (OutOfMemoryError e) {
                    HELD.addAndGet(-bytes);
                    disabled = true;
                    release();
                    return;
                }
            }
        }
    }

    /** Lets go of every array made ahead and makes no more (the connection closes); any thread. */
    public synchronized void drop() {
        release();
        disabled = true;
        active = false;
    }

    private void release() {
        for (int i = 0; i < MAX; i++) {
            unready(i);
        }
    }

    /** Takes position i's array out of the ready ones, and its bytes out of the JVM-wide count. */
    private Object unready(int i) {
        Object s = ready[i];
        if (s != null) {
            ready[i] = null;
            HELD.addAndGet(-readyBytes[i]);
            readyBytes[i] = 0;
        }
        return s;
    }

    /** Ends the message being read, if any: its long arrays become the last message's. */
    private void finish() {
        if (!open) {
            return;
        }
        open = false;
        boolean same = !overflow && count > 0 && count == lastCount;
        for (int i = 0; same && i < count; i++) {
            same = code[i] == lastCode[i] && len[i] == lastLen[i];
        }
        repeated = same;
        lastCount = overflow ? -1 : count;
        System.arraycopy(code, 0, lastCode, 0, count);
        System.arraycopy(len, 0, lastLen, 0, count);
        count = 0;
        overflow = false;
    }

    private static boolean fits(Object a, char cc, int n) {
        switch (cc) {
            case 'B': return a instanceof byte[] && ((byte[]) a).length == n;
            case 'Z': return a instanceof boolean[] && ((boolean[]) a).length == n;
            case 'C': return a instanceof char[] && ((char[]) a).length == n;
            case 'S': return a instanceof short[] && ((short[]) a).length == n;
            case 'I': return a instanceof int[] && ((int[]) a).length == n;
            case 'F': return a instanceof float[] && ((float[]) a).length == n;
            case 'J': return a instanceof long[] && ((long[]) a).length == n;
            case 'D': return a instanceof double[] && ((double[]) a).length == n;
            default: return false;
        }
    }

    static Object make(char cc, int n) {
        switch (cc) {
            case 'B': return new byte[n];
            case 'Z': return new boolean[n];
            case 'C': return new char[n];
            case 'S': return new short[n];
            case 'I': return new int[n];
            case 'F': return new float[n];
            case 'J': return new long[n];
            case 'D': return new double[n];
            default: throw new IllegalArgumentException("not a primitive array code: " + cc);
        }
    }
}

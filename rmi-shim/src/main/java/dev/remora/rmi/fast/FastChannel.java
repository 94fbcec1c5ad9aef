package dev.remora.rmi.fast;

import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.ReadTypeTable;
import dev.remora.serializer.SerializerOptions;
import dev.remora.serializer.Spares;
import dev.remora.serializer.TypeCacheMode;
import dev.remora.serializer.WriteTypeTable;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.util.IdentityHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The fast serializer's state of one side of one Remora connection: a write-side and a read-side type table
 * (separate objects), and one reused stream for each ("UKA-serialization": objects reset per call, types kept per connection).
 *
 * <p>Type ids are assigned in the order messages are written and learnt in the order they are read, so:
 * <ul>
 *   <li>writing is serialized: {@link #lockWrite()} is held from {@link #beginWrite()} until the frame is sent, so
 *       frames leave in the order their descriptors were assigned;</li>
 *   <li>reading happens in arrival order, on the connection's reading thread (the client's leader, the server's
 *       reader), one message at a time. A message's new descriptors sit in its prelude, read by
 *       {@link #beginRead}; a failure there leaves the tables out of step and marks the channel {@link #broken()}:
 *       the connection must close. A failure later in the body costs only that call.</li>
 * </ul>
 * Streams are made on first use, so a side that only ever receives fast frames (a peer configured
 * {@code remora.serializer=jdk} answering a fast one) pays nothing for the writer.
 */
public final class FastChannel {
    private final SerializerOptions options;
    private final Spares spares; // null: none
    private final ReentrantLock writeLock = new ReentrantLock();
    private final WriteTypeTable writeTypes = new WriteTypeTable();
    private final ReadTypeTable readTypes = new ReadTypeTable();
    private RmiFastOutput out; // guarded by writeLock
    private final Payload payload = new Payload();
    private RmiFastInput in; // used by the reading thread only
    /** Readers for objects exported with their own ObjectInputFilter (a stream's filter can be set only once). */
    private IdentityHashMap<ObjectInputFilter, RmiFastInput> filtered;
    private int sizeBefore;
    private volatile Thread reading;
    private volatile IOException broken;

    public FastChannel(SerializerOptions options) {
        this(options, 0);
    }

    /**
     * @param spareBytes budget of arrays made ahead for long primitive arrays this connection keeps receiving (see
     *     {@link Spares}; shared by every connection of the JVM); 0: none
     */
    public FastChannel(SerializerOptions options, long spareBytes) {
        this.options = options;
        this.spares = spareBytes > 0 ? new Spares(spareBytes) : null;
    }

    public FastChannel(TypeCacheMode mode) {
        this(SerializerOptions.DEFAULTS.withTypeCache(mode));
    }

    public FastChannel(TypeCacheMode mode, long spareBytes) {
        this(SerializerOptions.DEFAULTS.withTypeCache(mode), spareBytes);
    }

    /**
     * The reading thread is about to wait for the connection's next frame: it makes the arrays the next message will
     * likely need (see {@link Spares}), while it would only wait.
     */
    public void prepareRead() {
        Spares s = spares;
        if (s != null) {
            s.prepare();
        }
    }

    /** The connection is over: lets go of the arrays made ahead. Any thread. */
    public void close() {
        Spares s = spares;
        if (s != null) {
            s.drop();
        }
    }

    public void lockWrite() {
        writeLock.lock();
    }

    /** Releases the write lock; the last release also lets go of the sent message's objects. */
    public void unlockWrite() {
        RmiFastOutput o = out;
        if (o != null && writeLock.getHoldCount() == 1) {
            o.release();
        }
        writeLock.unlock();
    }

    /**
     * True while this thread is writing or reading a message of this channel: a call made from inside a class's
     * {@code writeObject}/{@code readObject} must not reuse the channel's streams (the router sends it by JRMP).
     */
    public boolean busyOnThisThread() {
        return writeLock.isHeldByCurrentThread() || reading == Thread.currentThread();
    }

    /** The prelude of a received message could not be read: the type tables are out of step. */
    public IOException broken() {
        return broken;
    }

    /** Starts a message (the write lock must be held). */
    public RmiFastOutput beginWrite() throws IOException {
        RmiFastOutput o = out;
        if (o == null) {
            out = o = new RmiFastOutput(writeTypes, options);
            o.externalArrays(TAIL_MIN);
        }
        sizeBefore = options.typeCache() == TypeCacheMode.CALL ? 0 : writeTypes.size();
        o.beginCall();
        return o;
    }

    /**
     * Messages at least this long become the frame's tail instead of being copied into it; primitive arrays at least
     * this long are not copied by the writer (they stay external, see RemoraObjectOutput#externalArrays).
     */
    static final int TAIL_MIN = 16 * 1024;

    /**
     * Ends the message and appends it to {@code dst}; returns how many type descriptors it carries. A long message
     * to a frame that {@linkplain FrameBuffer#allowTail allows a tail} is not copied: it becomes the frame's tail,
     * made of the writer's buffer and the long primitive arrays it refers to, and the link copies each piece once
     * (fabric: straight into the native staging buffer; socket: byte arrays straight to the socket). The write lock
     * held until the frame is sent keeps it intact, and the caller does not return to application code before then.
     * Otherwise it is copied into dst now. A copy of 100 KB cost 2.3 us in cache and up to 14 us in this VM's slow
     * stretches.
     */
    public int finishWrite(FrameBuffer dst) {
        RmiFastOutput o = out;
        o.finishCall();
        if (o.length() >= TAIL_MIN && dst.tailAllowed()) {
            dst.setTail(payload);
        } else {
            dst.append(payload);
        }
        return writeTypes.size() - sizeBefore;
    }

    /** The message will not be sent: its types are forgotten. */
    public void abortWrite() {
        if (out != null) {
            out.abortCall();
        }
    }

    /**
     * Starts reading the message from {@code f}'s position to its end.
     *
     * @param server a server reading arguments (class resolution without a default loader)
     * @param stubLoader a client: the loader of the class of the stub the call was made through
     * @param filter the exported object's own filter, or null for the JVM-wide one
     * @throws IOException the prelude is bad: the channel is {@link #broken()}
     */
    public RmiFastInput beginRead(FrameBuffer f, boolean server, ClassLoader stubLoader, ObjectInputFilter filter)
            throws IOException {
        IOException b = broken;
        if (b != null) {
            throw b;
        }
        RmiFastInput i = filter == null ? in : filteredReader(filter);
        if (i == null) {
            in = i = newReader();
        }
        i.readFor(server, stubLoader);
        reading = Thread.currentThread();
        int at = f.position();
        try {
            i.beginCall(f.array(), at, f.length() - at);
            if (f.apartCount() > 0) {
                i.provideArrays(f.apartArrays(), f.apartAt(), f.apartCount());
            }
        } catch (IOException | RuntimeException e) {
            reading = null;
            i.endCall();
            IOException x = e instanceof IOException ? (IOException) e
                    : new IOException("bad type descriptors in a Remora message: " + e, e);
            broken = x;
            throw x;
        }
        return i;
    }

    public void endRead(RmiFastInput i) {
        i.endCall();
        reading = null;
    }

    /**
     * Readers kept for objects exported with their own filter: beyond this many (each filter an object of its
     * application's classes, perhaps of a deployment since dropped) they are made again as needed.
     */
    static final int MAX_FILTERED = 8;

    private RmiFastInput filteredReader(ObjectInputFilter filter) throws IOException {
        if (filtered == null) {
            filtered = new IdentityHashMap<>(4);
        }
        RmiFastInput i = filtered.get(filter);
        if (i == null) {
            if (filtered.size() >= MAX_FILTERED) {
                filtered.clear(); // a redeployed application's filters are new objects: keep no old one's reader
            }
            i = newReader();
            i.setStreamFilter(filter);
            filtered.put(filter, i);
        }
        return i;
    }

    /** A reader of this channel's messages: its type table, its arrays made ahead. */
    private RmiFastInput newReader() throws IOException {
        RmiFastInput i = new RmiFastInput(readTypes, options);
        i.spares(spares);
        return i;
    }

    /** Readers kept for objects exported with a filter of their own (tests). */
    int filteredReaders() {
        return filtered == null ? 0 : filtered.size();
    }

    /** Types this side has described to the peer / learnt from it (tests, stats). */
    public int writeTypes() {
        return writeTypes.size();
    }

    public int readTypes() {
        return readTypes.size();
    }

    /** The writer's finished message, as a frame's tail. */
    private final class Payload implements FrameBuffer.Tail {
        @Override
        public int length() {
            return out.length();
        }

        @Override
        public int pieces() {
            return out.pieces();
        }

        @Override
        public Object piece(int i) {
            return out.piece(i);
        }

        @Override
        public int pieceOffset(int i) {
            return out.pieceOffset(i);
        }

        @Override
        public int pieceLength(int i) {
            return out.pieceLength(i);
        }

        @Override
        public char pieceElement(int i) {
            return out.pieceElement(i);
        }

        @Override
        public void copyTo(byte[] dst, int at) {
            out.copyTo(dst, at);
        }
    }
}

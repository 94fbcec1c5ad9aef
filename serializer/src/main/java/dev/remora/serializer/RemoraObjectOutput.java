package dev.remora.serializer;

import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectStreamClass;
import java.io.InvalidClassException;
import java.io.NotActiveException;
import java.io.NotSerializableException;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.IdentityHashMap;

/**
 * Remora's serializing stream: an {@link ObjectOutputStream} in subclass mode, so a class's own
 * {@code writeObject(ObjectOutputStream)} receives it and {@code defaultWriteObject}, {@code putFields},
 * {@code writeInt}... behave as in the JDK, while the bytes go to an internal growable buffer in Remora's format.
 *
 * <p>Per connection (the RMI shim): one instance, reused for every call.
 * <pre>
 *   out.beginCall();                  // handles reset, types kept (or reset in TypeCacheMode.CALL)
 *   out.writeObject(arg0); ...        // any number of objects and primitives
 *   out.finishCall();                 // the message is array()[offset() .. offset()+length())
 * </pre>
 * A call abandoned before {@code finishCall} (an exception while writing) rolls back the types it described when
 * the next call begins. Not thread-safe: one call at a time.
 *
 * <p>For {@code remora.oos=fast} file streams see {@link FastStreams}.
 *
 * <p>Hot path for a class whose hierarchy has no writeObject/writeReplace: one identity-map probe for the handle,
 * one for the type id, then the generated codec copies fields straight into {@link #buf}. No allocation.
 */
public class RemoraObjectOutput extends ObjectOutputStream {
    private static final int HEAD = 2;
    /** Below this many elements a loop beats creating a ByteBuffer view for a bulk copy. */
    static final int SMALL_ARRAY = 256; // flags + a one-byte "no new types" prelude, fixed up in finishCall

    /** Accessed by generated codecs. */
    byte[] buf;
    int pos;

    private final WriteTypeTable types;
    private final SerializerOptions options;
    private final IdentityIntMap handles = new IdentityIntMap(64);
    /** One-entry cache of the last class written and its id on this connection (trees, lists of one type). */
    private Class<?> lastClass;
    private ClassInfo lastInfo;
    private int lastId;
    private int lastTable = -1;
    /** A large message's buffer, kept weakly once it is sent ({@link #release}), for the next large one. */
    private final KeptBuffer kept = new KeptBuffer();
    private int nextHandle;
    private IdentityHashMap<Object, Object> subs;
    private byte[] typeBuf = new byte[256];
    private int typeLen;
    private int newTypes;
    private boolean inCall;
    private boolean finished;
    private int msgOffset;
    private int msgLength;
    private int nextFlags;
    private boolean replaceEnabled;
    private int depth;

    /*
     * External arrays (externalArrays): primitive arrays left where they are, to be copied once by whoever sends the
     * message. ext*[k]: the array, where its bytes belong in buf, their number. piece*: the finished message.
     */
    private int externalMin;
    private boolean externalsOff;
    private Object[] extArray = new Object[2];
    private int[] extAt = new int[2];
    private int[] extLen = new int[2];
    private char[] extCode = new char[2]; // the array's component code; 0 once copied (beforeUserCode)
    private int extCount;
    private int extBytes;
    private Object[] pieceArray = new Object[1];
    private int[] pieceOffset = new int[1];
    private int[] pieceLength = new int[1];
    private char[] pieceCode = new char[1];
    private int pieceCount;

    // the class whose writeObject is running
    private Object curObj;
    private Slot curSlot;
    private PutFieldImpl curPut;

    /** The lambda class whose writeReplace gave the SerializedLambda about to be written, or null. */
    private Class<?> lambdaClass;

    /** Stream mode (remora.oos=fast): frames go to this sink. */
    private final OutputStream sink;
    /**
     * Stream mode: a class's writeObject/writeExternal is running, and the next object written is one of its own
     * (not one that an object it wrote holds); where each starts goes into its section's table.
     */
    private boolean sectionDirect;
    /** Stream mode: the runs of objects (start, end) of the open sections, the innermost section's last. */
    private int[] sectionRuns = new int[16];
    private int nSectionRuns;

    /** A stream for one connection's calls; the type table belongs to the connection. */
    public RemoraObjectOutput(WriteTypeTable types, SerializerOptions options) throws IOException {
        this(types, options, null);
    }

    RemoraObjectOutput(WriteTypeTable types, SerializerOptions options, OutputStream sink) throws IOException {
        super();
        this.types = types;
        this.options = options;
        this.buf = new byte[options.initialBufferSize()];
        this.sink = sink;
        if (sink != null) {
            nextFlags = Wire.F_HANDLES_RESET;
            beginMessage();
        }
    }

    /** The connection's write-side type table. */
    public WriteTypeTable typeTable() {
        return types;
    }

    /** Starts a call: objects written before are forgotten, types kept (unless {@link TypeCacheMode#CALL}). */
    public void beginCall() {
        if (inCall && !finished) {
            types.rollback();
        }
        handles.clear();
        nextHandle = 0;
        if (subs != null) {
            subs.clear();
        }
        curObj = null;
        curSlot = null;
        curPut = null;
        depth = 0;
        nextFlags = 0;
        if (options.typeCache() == TypeCacheMode.CALL) {
            types.clear();
            nextFlags |= Wire.F_TYPES_RESET;
        }
        beginMessage();
    }

    /**
     * Abandons the current call (it will not be sent): forgets the types it described. {@link #beginCall()} does
     * the same for a call left unfinished, so calling this is optional.
     */
    public void abortCall() {
        if (inCall && !finished) {
            types.rollback();
        }
        inCall = false;
        finished = false;
    }

    private void beginMessage() {
        typeLen = 0;
        newTypes = 0;
        pos = HEAD;
        inCall = true;
        finished = false;
        forgetExternals();
        externalsOff = false;
    }

    /** Drops the external arrays and the pieces of the last message (no references to the application's arrays). */
    private void forgetExternals() {
        if (extCount > 0) {
            Arrays.fill(extArray, 0, extCount, null);
            Arrays.fill(pieceArray, 0, pieceCount, null);
            extCount = 0;
            extBytes = 0;
        }
        pieceCount = 0;
    }

    /**
     * Lets primitive arrays ({@code boolean[]} excepted) of at least {@code minBytes} bytes stay where they are: the
     * message refers to them instead of holding a copy, and whoever sends it copies them once, from
     * {@link #piece(int)} (their bytes on the wire are their memory, in native order). Such a message has no single
     * {@link #array()}: read it by pieces or {@link #copyTo(byte[], int)}. It stays valid until the next
     * {@link #beginCall()} provided nobody changes those arrays meanwhile, so the caller sends it before it returns
     * to user code. Arrays written after user code (a class's writeObject, writeExternal, writeReplace, a record's
     * accessors) ran in this message are copied as before, and those written earlier are copied when it starts: user
     * code may change an array it has already written, and the peer must see it as it was. 0 turns this off (the
     * default); not for stream mode.
     */
    public void externalArrays(int minBytes) {
        if (sink != null && minBytes > 0) {
            throw new IllegalStateException("external arrays need a message that is sent whole, not a stream");
        }
        externalMin = Math.max(0, minBytes);
    }

    /**
     * Lets go of the finished message's objects (its handle table and external arrays) once it has been sent, so
     * that the writer does not keep an application's (perhaps large) objects reachable until its next call. The
     * message cannot be read after that; types stay committed. Not for stream mode, whose handles span messages.
     */
    public void release() {
        if (sink != null) {
            throw new IllegalStateException("a stream's handles span its messages");
        }
        handles.clear();
        if (subs != null) {
            subs.clear();
        }
        forgetExternals();
        lastClass = null; // a connection's writer outlives its calls: it must not keep a dropped deployment's class
        lastInfo = null;
        byte[] b = kept.relax(buf, options.initialBufferSize()); // nor a large message's buffer, but weakly
        if (b != buf) {
            buf = b;
            pos = 0;
        }
        inCall = false;
        finished = false;
    }

    /** Records array a (bytes long) as external at pos, or returns false if it is to be copied. */
    private boolean external(Object a, int bytes) {
        if (externalMin == 0 || bytes < externalMin || externalsOff) {
            return false;
        }
        if (extCount == extArray.length) {
            int n = extCount * 2;
            extArray = Arrays.copyOf(extArray, n);
            extAt = Arrays.copyOf(extAt, n);
            extLen = Arrays.copyOf(extLen, n);
            extCode = Arrays.copyOf(extCode, n);
        }
        extCode[extCount] = PrimitiveArrays.code(a);
        extArray[extCount] = a;
        extAt[extCount] = pos;
        extLen[extCount] = bytes;
        extCount++;
        extBytes += bytes;
        return true;
    }

    /**
     * Code of class c (writeObject, writeExternal, writeReplace, record accessors) runs next. If it is the
     * application's, it may change arrays written so far: those still external are copied now (into arrays of their
     * own, so that buf's positions stay), and no more become external in this message. The JDK's own classes
     * (LinkedList's writeObject...) change no arrays of the application.
     */
    private void beforeUserCode(Class<?> c) {
        if (externalsOff || externalMin == 0) {
            return;
        }
        if (!ClassResolver.userDefined(c.getClassLoader())) {
            return;
        }
        externalsOff = true;
        for (int k = 0; k < extCount; k++) {
            byte[] copy = new byte[extLen[k]];
            copyPiece(extArray[k], 0, copy, 0, extLen[k]);
            extArray[k] = copy;
            extCode[k] = 0;
        }
    }

    /**
     * Ends the call: the message is complete, {@link #length()} bytes, in {@link #array()} from {@link #offset()} or,
     * with external arrays, in its {@link #pieces()}.
     */
    public void finishCall() {
        if (!inCall || finished) {
            throw new IllegalStateException("finishCall() without beginCall()");
        }
        int flags = nextFlags | (Bytes.NATIVE == java.nio.ByteOrder.LITTLE_ENDIAN ? Wire.F_LITTLE_ENDIAN : 0);
        if (newTypes == 0) {
            buf[0] = (byte) flags;
            buf[1] = 0;
            msgOffset = 0;
            msgLength = pos;
        } else {
            // prelude: varint count, then the descriptors; shift the body behind it (only when types are new)
            int countLen = varintSize(newTypes);
            int prelude = countLen + typeLen;
            int bodyLen = pos - HEAD;
            int need = 1 + prelude + bodyLen;
            if (need > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(need, buf.length * 2));
            }
            System.arraycopy(buf, HEAD, buf, 1 + prelude, bodyLen);
            buf[0] = (byte) flags;
            int p = putVarint(buf, 1, newTypes);
            System.arraycopy(typeBuf, 0, buf, p, typeLen);
            msgOffset = 0;
            msgLength = need;
            for (int k = 0; k < extCount; k++) {
                extAt[k] += 1 + prelude - HEAD;
            }
        }
        nextFlags = 0;
        finished = true;
        types.commit();
        makePieces();
    }

    private void makePieces() {
        int max = 2 * extCount + 1;
        if (pieceArray.length < max) {
            pieceArray = new Object[max];
            pieceOffset = new int[max];
            pieceLength = new int[max];
            pieceCode = new char[max];
        }
        int n = 0;
        int p = msgOffset;
        for (int k = 0; k < extCount; k++) {
            if (extAt[k] > p) {
                n = addPiece(n, buf, p, extAt[k] - p);
                p = extAt[k];
            }
            n = addPiece(n, extArray[k], 0, extLen[k]);
            pieceCode[n - 1] = extCode[k];
        }
        int end = msgOffset + msgLength;
        if (end > p || n == 0) {
            n = addPiece(n, buf, p, end - p);
        }
        pieceCount = n;
    }

    private int addPiece(int n, Object a, int off, int len) {
        pieceCode[n] = 0;
        pieceArray[n] = a;
        pieceOffset[n] = off;
        pieceLength[n] = len;
        return n + 1;
    }

    /**
     * The buffer holding the finished message from {@link #offset()} (valid until the next beginCall); only for a
     * message without external arrays ({@link #pieces()} is then 1).
     */
    public byte[] array() {
        checkFinished();
        if (extCount > 0) {
            throw new IllegalStateException("the message refers to external arrays: read it by pieces");
        }
        return buf;
    }

    public int offset() {
        array();
        return msgOffset;
    }

    /** The finished message's length in bytes, external arrays included. */
    public int length() {
        checkFinished();
        return msgLength + extBytes;
    }

    /** The finished message is pieces 0 to pieces() - 1, in order: parts of byte arrays and whole external arrays. */
    public int pieces() {
        checkFinished();
        return pieceCount;
    }

    /** Piece i's array: a {@code byte[]}, or an external primitive array whose memory is its bytes (native order). */
    public Object piece(int i) {
        return pieceArray[i];
    }

    /**
     * If piece i is one of the message's primitive arrays whole (an external array, not a copy), its component
     * code ({@code 'I'} for an {@code int[]}, as in a type descriptor); else 0. A receiver that knows where such a
     * piece lies in the message may read it into an array of that type and hand it to
     * {@link RemoraObjectInput#provideArrays} instead of copying it into the message.
     */
    public char pieceElement(int i) {
        return pieceCode[i];
    }

    /** Where piece i starts in its array, in bytes. */
    public int pieceOffset(int i) {
        return pieceOffset[i];
    }

    /** Piece i's length in bytes. */
    public int pieceLength(int i) {
        return pieceLength[i];
    }

    /** Copies the finished message to dst[at, at + length()). */
    public void copyTo(byte[] dst, int at) {
        checkFinished();
        for (int i = 0; i < pieceCount; i++) {
            copyPiece(pieceArray[i], pieceOffset[i], dst, at, pieceLength[i]);
            at += pieceLength[i];
        }
    }

    /** Copies the finished message into dst at its position, which advances by length(). */
    public void copyTo(ByteBuffer dst) {
        checkFinished();
        for (int i = 0; i < pieceCount; i++) {
            Object a = pieceArray[i];
            int len = pieceLength[i];
            if (a instanceof byte[]) {
                dst.put((byte[]) a, pieceOffset[i], len);
            } else {
                putArray(a, pieceOffset[i], len, dst.slice().order(Bytes.NATIVE));
                dst.position(dst.position() + len);
            }
        }
    }

    /**
     * Copies len bytes of primitive array a, from byte offset off, to dst[at, at + len): its memory in native order,
     * which is how this writer puts such arrays on the wire.
     */
    public static void copyPiece(Object a, int off, byte[] dst, int at, int len) {
        if (a instanceof byte[]) {
            System.arraycopy((byte[]) a, off, dst, at, len);
        } else if (ArrayBytes.BULK) {
            ArrayBytes.toBytes(a, off, dst, at, len);
        } else {
            putArray(a, off, len, ByteBuffer.wrap(dst, at, len).order(Bytes.NATIVE));
        }
    }

    /** Puts len bytes of a (not a byte[]) from byte offset off into d, whose position is 0 and order native. */
    private static void putArray(Object a, int off, int len, ByteBuffer d) {
        if (a instanceof int[]) {
            d.asIntBuffer().put((int[]) a, off / 4, len / 4);
        } else if (a instanceof long[]) {
            d.asLongBuffer().put((long[]) a, off / 8, len / 8);
        } else if (a instanceof double[]) {
            d.asDoubleBuffer().put((double[]) a, off / 8, len / 8);
        } else if (a instanceof float[]) {
            d.asFloatBuffer().put((float[]) a, off / 4, len / 4);
        } else if (a instanceof short[]) {
            d.asShortBuffer().put((short[]) a, off / 2, len / 2);
        } else if (a instanceof char[]) {
            d.asCharBuffer().put((char[]) a, off / 2, len / 2);
        } else {
            throw new IllegalArgumentException("not an array this writer leaves external: " + a.getClass().getName());
        }
    }

    private void checkFinished() {
        if (!finished) {
            throw new IllegalStateException("call not finished: call finishCall() first");
        }
    }

    private void checkWritable() throws IOException {
        if (!inCall || finished) {
            throw new IOException("no call in progress: call beginCall() before writing");
        }
    }

    // ---------------------------------------------------------------- objects

    @Override
    protected final void writeObjectOverride(Object obj) throws IOException {
        writeTop(obj, false);
    }

    @Override
    public void writeUnshared(Object obj) throws IOException {
        writeTop(obj, true);
    }

    private void writeTop(Object obj, boolean unshared) throws IOException {
        checkWritable();
        if (depth == 0 && sink == null) {
            writeObject0(obj, unshared);
            return;
        }
        boolean top = depth == 0;
        int start = pos;
        if (top) {
            nSectionRuns = 0; // what a failed write left of its sections' tables
        }
        depth++;
        try {
            writeObject0(obj, unshared);
        } catch (IOException e) {
            if (top) {
                depth = 0;
                writeAborted(start, e);
            }
            throw e;
        } finally {
            depth = top ? 0 : depth - 1;
        }
        if (depth == 0 && sink != null) {
            emitFrame();
        }
    }

    /**
     * Stream mode, as {@code ObjectOutputStream.writeFatalException}: a top-level write that failed with {@code e}
     * leaves {@code e} in the stream, where the reader throws it inside a WriteAbortedException, and both sides clear
     * their handles. What the failed value wrote stays in front of it, as the JDK leaves it: its reader reads that
     * partial value (a class's readObject runs on the data its writeObject wrote before the failure) and meets the
     * exception where the data stops ({@link Wire#F_CUT}). Should {@code e} itself fail to write, the frame cut
     * there is followed by no exception (the JDK's stream is as broken then).
     */
    private void writeAborted(int start, IOException e) throws IOException {
        curObj = null;
        curSlot = null;
        curPut = null;
        if (pos > start) {
            nextFlags |= Wire.F_CUT;
        } else {
            types.rollback(); // nothing of the value was written: its new types are never sent
            typeLen = 0;
            newTypes = 0;
        }
        emitFrame();
        clearHandles();
        nextFlags |= Wire.F_HANDLES_RESET | Wire.F_ABORTED;
        int mark = pos;
        depth = 1;
        try {
            writeObject0(e, false);
        } catch (IOException | RuntimeException x) {
            pos = mark;
            types.rollback();
            typeLen = 0;
            newTypes = 0;
            nextFlags &= ~Wire.F_ABORTED;
            return;
        } finally {
            depth = 0;
        }
        emitFrame();
        clearHandles();
        nextFlags |= Wire.F_HANDLES_RESET;
    }

    private void clearHandles() {
        handles.clear();
        nextHandle = 0;
        if (subs != null) {
            subs.clear();
        }
    }

    /** Reference field of a generated codec. */
    final void writeFieldObject(Object obj) throws IOException {
        writeObject0(obj, false);
    }

    final void writeObject0(Object obj, boolean unshared) throws IOException {
        if (sectionDirect) {
            writeSectionObject(obj, unshared);
            return;
        }
        if (obj == null) {
            writeTag(Wire.T_NULL);
            return;
        }
        Class<?> cl = obj.getClass();
        ClassInfo ci;
        if (cl == lastClass) {
            ci = lastInfo;
        } else {
            ci = cl == String.class ? null : ClassInfo.of(cl);
        }
        if (!unshared && (ci == null || (ci.fast && ci.writeReplace == null))
                && (subs == null || !subs.containsKey(obj))) {
            if (!replaceEnabled) {
                // common case: one probe both finds a back reference and registers a new object
                int h = handles.putIfAbsent(obj, nextHandle);
                if (h >= 0) {
                    writeRef(h);
                    return;
                }
                nextHandle++;
            } else {
                // RMI's streams always replace (exported objects by their stubs): keep the fast path for the rest
                int h = handles.get(obj);
                if (h >= 0) {
                    writeRef(h);
                    return;
                }
                Object rep = replaceObject(obj);
                if (rep != obj) {
                    Class<?> rc = rep == null ? null : rep.getClass();
                    writeAfterReplace(obj, rep, rc, rc == null ? null : ClassInfo.of(rc), false);
                    return;
                }
                assign(obj, false);
            }
            if (ci == null) {
                writeString((String) obj, Wire.T_STRING_L1, Wire.T_STRING_U16);
            } else {
                writeFast(obj, cl, ci);
            }
            return;
        }
        if (!unshared) {
            int h = handles.get(obj);
            if (h >= 0) {
                writeRef(h);
                return;
            }
        }
        if (cl == String.class) {
            assign(obj, unshared);
            writeString((String) obj, Wire.T_STRING_L1, Wire.T_STRING_U16);
            return;
        }
        if (ci.fast && ci.writeReplace == null && !replaceEnabled && subs == null && cl != Class.class) {
            assign(obj, unshared);
            writeFast(obj, cl, ci);
            return;
        }
        writeSlow(obj, cl, ci, unshared);
    }

    /** Tag, type id, generated codecs: the handle is assigned already. */
    private void writeFast(Object obj, Class<?> cl, ClassInfo ci) throws IOException {
        ensure(6);
        buf[pos++] = Wire.T_OBJECT;
        if (cl == lastClass && lastTable == types.generation()) {
            pos = putVarint(buf, pos, lastId);
        } else {
            writeType(ci);
        }
        {
            Slot[] slots = ci.slots;
            for (int i = 0; i < slots.length; i++) {
                FieldCodec c = slots[i].codec;
                if (c != null) {
                    c.write(obj, this);
                }
            }
        }
    }

    private void writeSlow(Object obj, Class<?> cl, ClassInfo ci, boolean unshared) throws IOException {
        Object orig = obj;
        if (subs != null) {
            Object s = subs.get(obj);
            if (s != null || subs.containsKey(obj)) {
                obj = s;
                if (obj == null) {
                    writeTag(Wire.T_NULL);
                    return;
                }
                if (!unshared) {
                    int h = handles.get(obj);
                    if (h >= 0) {
                        writeRef(h);
                        return;
                    }
                }
                cl = obj.getClass();
                ci = ClassInfo.of(cl);
                orig = obj;
            }
        }
        if (obj instanceof Class) {
            assign(obj, unshared);
            writeTag(Wire.T_CLASS);
            writeType(ClassInfo.of((Class<?>) obj));
            return;
        }
        if (obj instanceof ObjectStreamClass) { // as the JDK: a class descriptor, never replaced
            writeDesc((ObjectStreamClass) obj, unshared);
            return;
        }
        // writeReplace chain, then replaceObject, in the JDK's order
        for (;;) {
            if (ci.writeReplace == null) {
                break;
            }
            Object rep;
            beforeUserCode(cl);
            try {
                rep = ci.writeReplace.invokeExact(obj);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            }
            if (rep instanceof SerializedLambda) {
                lambdaClass = cl; // its capturing class is written as a Class, as the JDK writes the field
            }
            obj = rep;
            if (rep == null || rep.getClass() == cl) {
                break;
            }
            cl = rep.getClass();
            ci = ClassInfo.of(cl);
        }
        if (replaceEnabled) {
            Object rep = replaceObject(obj);
            if (rep != obj && rep != null) {
                cl = rep.getClass();
                ci = ClassInfo.of(cl);
            }
            obj = rep;
        }
        writeAfterReplace(orig, obj, cl, ci, unshared);
    }

    /** The rest of the JDK's writeObject0 once replacement is done (obj may differ from orig, or be null). */
    private void writeAfterReplace(Object orig, Object obj, Class<?> cl, ClassInfo ci, boolean unshared)
            throws IOException {
        if (obj != orig) {
            if (subs == null) {
                subs = new IdentityHashMap<>();
            }
            subs.put(orig, obj);
            if (obj == null) {
                writeTag(Wire.T_NULL);
                return;
            }
            if (!unshared) {
                int h = handles.get(obj);
                if (h >= 0) {
                    writeRef(h);
                    return;
                }
            }
            if (obj instanceof Class) {
                assign(obj, unshared);
                writeTag(Wire.T_CLASS);
                writeType(ClassInfo.of((Class<?>) obj));
                return;
            }
            if (obj instanceof ObjectStreamClass) {
                writeDesc((ObjectStreamClass) obj, unshared);
                return;
            }
        }
        if (cl == String.class) {
            assign(obj, unshared);
            writeString((String) obj, Wire.T_STRING_L1, Wire.T_STRING_U16);
            return;
        }
        switch (ci.kind) {
            case ClassInfo.ARRAY:
                writeArray(obj, ci, unshared);
                return;
            case ClassInfo.ENUM:
                assign(obj, unshared);
                writeTag(Wire.T_ENUM);
                writeType(ci);
                writeString(((Enum<?>) obj).name(), Wire.T_STRING_L1, Wire.T_STRING_U16);
                return;
            default:
                break;
        }
        if (obj instanceof Enum) { // a constant with a body: its class is an anonymous subclass
            Class<?> ec = ((Enum<?>) obj).getDeclaringClass();
            assign(obj, unshared);
            writeTag(Wire.T_ENUM);
            writeType(ClassInfo.of(ec));
            writeString(((Enum<?>) obj).name(), Wire.T_STRING_L1, Wire.T_STRING_U16);
            return;
        }
        if (!ci.serializable || ci.kind == ClassInfo.CLASS_ONLY) {
            throw new NotSerializableException(cl.getName());
        }
        if (ci.problem != null) {
            throw new InvalidClassException(ci.problemClass, ci.problem);
        }
        assign(obj, unshared);
        writeTag(Wire.T_OBJECT);
        writeType(ci);
        switch (ci.kind) {
            case ClassInfo.SPECIAL:
                writeSpecial(obj, ci);
                return;
            case ClassInfo.PROXY:
                writeObject0(Proxy.getInvocationHandler(obj), false);
                return;
            case ClassInfo.RECORD:
                beforeUserCode(ci.cl); // the accessors are the record's own methods
                for (int i = 0; i < ci.recNames.length; i++) {
                    if (Bytes.size(ci.recCodes[i]) != 0) {
                        writePrimitive(ci.recCodes[i], invoke1(ci.recGet[i], obj));
                    }
                }
                for (int i = 0; i < ci.recNames.length; i++) {
                    if (Bytes.size(ci.recCodes[i]) == 0) {
                        writeObject0(invoke1(ci.recGet[i], obj), false);
                    }
                }
                return;
            case ClassInfo.EXTERNALIZABLE: {
                beforeUserCode(obj.getClass());
                int sec = openSection();
                Object so = curObj;
                Slot ss = curSlot;
                PutFieldImpl sp = curPut;
                curObj = null;
                curSlot = null;
                curPut = null;
                boolean sd = sectionDirect;
                sectionDirect = sink != null;
                try {
                    ((Externalizable) obj).writeExternal(this);
                } catch (IOException x) {
                    closeSection(sec, true); // the data ends here: an aborted write keeps it (writeAborted)
                    throw x;
                } finally {
                    sectionDirect = sd;
                    curObj = so;
                    curSlot = ss;
                    curPut = sp;
                }
                closeSection(sec, false);
                return;
            }
            default: // PLAIN
                Slot[] slots = ci.slots;
                for (int i = 0; i < slots.length; i++) {
                    writeSlot(obj, slots[i]);
                }
        }
    }

    private void writeSlot(Object obj, Slot slot) throws IOException {
        if (slot.writeObject == null) {
            writeDefaultFields(obj, slot);
            return;
        }
        beforeUserCode(slot.cl);
        int sec = openSection();
        Object so = curObj;
        Slot ss = curSlot;
        PutFieldImpl sp = curPut;
        curObj = obj;
        curSlot = slot;
        curPut = null;
        depth++;
        boolean sd = sectionDirect;
        sectionDirect = sink != null;
        try {
            slot.writeObject.invokeExact(obj, (ObjectOutputStream) this);
        } catch (IOException e) {
            closeSection(sec, true); // the data ends here: an aborted write keeps it (writeAborted)
            throw e;
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        } finally {
            sectionDirect = sd;
            depth--;
            curObj = so;
            curSlot = ss;
            curPut = sp;
        }
        closeSection(sec, false);
    }

    private void writeDefaultFields(Object obj, Slot slot) throws IOException {
        if (slot.unmatched) {
            throw new InvalidClassException(slot.cl.getName(), "unmatched serializable field(s) declared");
        }
        FieldCodec codec = slot.codec;
        MethodHandle[] get;
        if (codec != null) {
            codec.write(obj, this);
        } else if ((get = slot.getters()) != null) {
            for (int i = 0; i < slot.codes.length; i++) {
                if (Bytes.size(slot.codes[i]) != 0) {
                    writePrimitive(slot.codes[i], invoke1(get[i], obj));
                }
            }
            boolean[] un = slot.unshared;
            for (int i = 0; i < slot.codes.length; i++) {
                if (Bytes.size(slot.codes[i]) == 0) {
                    writeObject0(invoke1(get[i], obj), un != null && un[i]);
                }
            }
        } else if (slot.jdkDefaultWrite != null) {
            Object so = curObj;
            Slot ss = curSlot;
            PutFieldImpl sp = curPut;
            curObj = obj;
            curSlot = slot;
            curPut = null;
            try {
                slot.jdkDefaultWrite.invokeExact(obj, (ObjectOutputStream) this);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            } finally {
                curObj = so;
                curSlot = ss;
                curPut = sp;
            }
        } else if (slot.hasFields()) {
            throw new InvalidClassException(slot.cl.getName(), "cannot reach its fields (" + slot.accessProblem
                    + "): open its package to Remora's module, or use remora.serializer=jdk");
        }
    }

    private static Object invoke1(java.lang.invoke.MethodHandle h, Object o) throws IOException {
        try {
            return h.invokeExact(o);
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException(t);
        }
    }

    /**
     * A SerializedLambda's capturing class (its getter gives only the name): the lambda class whose writeReplace
     * made it is a nestmate of it, defined by its loader; a SerializedLambda written as it is resolves by name.
     */
    private Class<?> capturingClass(SerializedLambda l) throws IOException {
        String name = l.getCapturingClass().replace('/', '.');
        Class<?> lc = lambdaClass;
        lambdaClass = null;
        try {
            if (lc != null) {
                Class<?> host = lc.getNestHost();
                if (host.getName().equals(name)) {
                    return host;
                }
                for (Class<?> m : host.getNestMembers()) {
                    if (m.getName().equals(name)) {
                        return m;
                    }
                }
                return Class.forName(name, false, lc.getClassLoader());
            }
            return ClassResolver.latestUserDefinedLoader().resolve(name);
        } catch (ClassNotFoundException | LinkageError | SecurityException e) {
            throw (IOException) new NotSerializableException(name + " (the capturing class of a lambda)").initCause(e);
        }
    }

    private void writeSpecial(Object obj, ClassInfo ci) throws IOException {
        switch (ci.special) {
            case ClassInfo.SP_INT: writeInt((Integer) obj); return;
            case ClassInfo.SP_LONG: writeLong((Long) obj); return;
            case ClassInfo.SP_BOOLEAN: writeBoolean((Boolean) obj); return;
            case ClassInfo.SP_DOUBLE: writeDouble((Double) obj); return;
            case ClassInfo.SP_FLOAT: writeFloat((Float) obj); return;
            case ClassInfo.SP_SHORT: writeShort((Short) obj); return;
            case ClassInfo.SP_BYTE: writeByte((Byte) obj); return;
            case ClassInfo.SP_CHAR: writeChar((Character) obj); return;
            case ClassInfo.SP_ARRAYLIST: {
                java.util.ArrayList<?> l = (java.util.ArrayList<?>) obj;
                int n = l.size();
                writeVarint(n);
                for (int i = 0; i < n; i++) {
                    writeObject0(l.get(i), false);
                }
                if (l.size() != n) {
                    throw new java.util.ConcurrentModificationException();
                }
                return;
            }
            default: {
                // the JDK's fields in its order (the int, then the references by name): the Class and the strings
                // are values with handles, so the reader's filter sees what the JDK's sees (the capturing class,
                // back references to shared strings)
                SerializedLambda l = (SerializedLambda) obj;
                Class<?> capturing = capturingClass(l);
                writeInt(l.getImplMethodKind());
                Object[] args = new Object[l.getCapturedArgCount()];
                for (int i = 0; i < args.length; i++) {
                    args[i] = l.getCapturedArg(i);
                }
                writeObject0(args, false);
                writeObject0(capturing, false);
                writeObject0(l.getFunctionalInterfaceClass(), false);
                writeObject0(l.getFunctionalInterfaceMethodName(), false);
                writeObject0(l.getFunctionalInterfaceMethodSignature(), false);
                writeObject0(l.getImplClass(), false);
                writeObject0(l.getImplMethodName(), false);
                writeObject0(l.getImplMethodSignature(), false);
                writeObject0(l.getInstantiatedMethodType(), false);
            }
        }
    }

    private void writeArray(Object obj, ClassInfo ci, boolean unshared) throws IOException {
        assign(obj, unshared);
        writeTag(Wire.T_ARRAY);
        writeType(ci);
        switch (ci.componentCode) {
            case 'B': {
                byte[] a = (byte[]) obj;
                writeVarint(a.length);
                if (!external(a, a.length)) {
                    write(a, 0, a.length);
                }
                return;
            }
            case 'Z': {
                boolean[] a = (boolean[]) obj;
                writeVarint(a.length);
                ensure(a.length);
                for (int i = 0; i < a.length; i++) {
                    buf[pos + i] = (byte) (a[i] ? 1 : 0);
                }
                pos += a.length;
                return;
            }
            case 'C': {
                char[] a = (char[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 2)) {
                    return;
                }
                ensure(a.length * 2);
                copyPiece(a, 0, buf, pos, a.length * 2);
                pos += a.length * 2;
                return;
            }
            case 'S': {
                short[] a = (short[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 2)) {
                    return;
                }
                ensure(a.length * 2);
                copyPiece(a, 0, buf, pos, a.length * 2);
                pos += a.length * 2;
                return;
            }
            case 'I': {
                int[] a = (int[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 4)) {
                    return;
                }
                ensure(a.length * 4);
                if (a.length < SMALL_ARRAY && !ArrayBytes.BULK) {
                    byte[] b = buf;
                    int p = pos;
                    for (int i = 0; i < a.length; i++) {
                        Bytes.NI.set(b, p + 4 * i, a[i]);
                    }
                } else {
                    copyPiece(a, 0, buf, pos, a.length * 4);
                }
                pos += a.length * 4;
                return;
            }
            case 'F': {
                float[] a = (float[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 4)) {
                    return;
                }
                ensure(a.length * 4);
                if (a.length < SMALL_ARRAY && !ArrayBytes.BULK) {
                    byte[] b = buf;
                    int p = pos;
                    for (int i = 0; i < a.length; i++) {
                        Bytes.NF.set(b, p + 4 * i, a[i]);
                    }
                } else {
                    copyPiece(a, 0, buf, pos, a.length * 4);
                }
                pos += a.length * 4;
                return;
            }
            case 'J': {
                long[] a = (long[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 8)) {
                    return;
                }
                ensure(a.length * 8);
                if (a.length < SMALL_ARRAY && !ArrayBytes.BULK) {
                    byte[] b = buf;
                    int p = pos;
                    for (int i = 0; i < a.length; i++) {
                        Bytes.NJ.set(b, p + 8 * i, a[i]);
                    }
                } else {
                    copyPiece(a, 0, buf, pos, a.length * 8);
                }
                pos += a.length * 8;
                return;
            }
            case 'D': {
                double[] a = (double[]) obj;
                writeVarint(a.length);
                if (external(a, a.length * 8)) {
                    return;
                }
                ensure(a.length * 8);
                if (a.length < SMALL_ARRAY && !ArrayBytes.BULK) {
                    byte[] b = buf;
                    int p = pos;
                    for (int i = 0; i < a.length; i++) {
                        Bytes.ND.set(b, p + 8 * i, a[i]);
                    }
                } else {
                    copyPiece(a, 0, buf, pos, a.length * 8);
                }
                pos += a.length * 8;
                return;
            }
            default: {
                Object[] a = (Object[]) obj;
                writeVarint(a.length);
                for (int i = 0; i < a.length; i++) {
                    writeObject0(a[i], false);
                }
            }
        }
    }

    private void assign(Object obj, boolean unshared) {
        int h = nextHandle++;
        if (!unshared) {
            handles.put(obj, h);
        }
    }

    private void writeRef(int h) {
        ensure(6);
        buf[pos++] = Wire.T_REF;
        pos = putVarint(buf, pos, h);
    }

    private void writeTag(byte tag) {
        ensure(1);
        buf[pos++] = tag;
    }

    private void writeType(ClassInfo ci) {
        int id = types.idOf(ci.cl);
        if (id >= 0) {
            lastClass = ci.cl;
            lastInfo = ci;
            lastId = id;
            lastTable = types.generation();
        }
        if (id < 0) {
            id = types.add(ci.cl);
            byte[] d = ci.descriptor;
            int need = typeLen + 5 + d.length;
            if (need > typeBuf.length) {
                typeBuf = Arrays.copyOf(typeBuf, Math.max(need, typeBuf.length * 2));
            }
            typeLen = putVarint(typeBuf, typeLen, d.length);
            System.arraycopy(d, 0, typeBuf, typeLen, d.length);
            typeLen += d.length;
            newTypes++;
        }
        ensure(5);
        pos = putVarint(buf, pos, id);
    }

    /** A string with a one-byte coder tag: Latin-1 bytes, or UTF-16 code units in the sender's order. */
    /** An ObjectStreamClass as a value: {@link Wire#T_DESC}. */
    private void writeDesc(ObjectStreamClass desc, boolean unshared) throws IOException {
        byte[] b = JdkDescriptors.write(desc);
        assign(desc, unshared);
        writeTag(Wire.T_DESC);
        writeVarint(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buf, pos, b.length);
        pos += b.length;
    }

    private void writeString(String s, byte tagL1, byte tagU16) {
        int n = s.length();
        ensure(6 + n);
        int start = pos;
        byte[] b = buf;
        b[pos++] = tagL1;
        int p = putVarint(b, pos, n);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c > 0xFF) {
                writeStringU16(s, start, tagU16);
                return;
            }
            b[p + i] = (byte) c;
        }
        pos = p + n;
    }

    private void writeStringU16(String s, int start, byte tagU16) {
        int n = s.length();
        pos = start;
        ensure(6 + 2 * n);
        byte[] b = buf;
        b[pos++] = tagU16;
        int p = putVarint(b, pos, n);
        for (int i = 0; i < n; i++) {
            Bytes.NC.set(b, p + 2 * i, s.charAt(i));
        }
        pos = p + 2 * n;
    }

    private int openSection() {
        ensure(Wire.SECTION_HEADER);
        int at = pos;
        pos += Wire.SECTION_HEADER;
        // remember the handle count (and in stream mode where this section's runs start in sectionRuns) in the
        // header until closeSection
        Bytes.BE_I.set(buf, at + 4, nextHandle);
        if (sink != null) {
            Bytes.BE_I.set(buf, at, nSectionRuns);
        }
        return at;
    }

    /**
     * @param cut whether the section's data ends where a write failed (Wire.F_CUT): in stream mode such a section
     *     gets no table, so that it ends where the data stops, as the frame does
     */
    private void closeSection(int at, boolean cut) {
        int flag = 0;
        if (sink != null) {
            int mark = (int) Bytes.BE_I.get(buf, at);
            if (cut) {
                flag = 0x80000000;
            } else { // the table of the section's runs of objects, then its length, after the data
                int n = (nSectionRuns - mark) / 2;
                int data = at + Wire.SECTION_HEADER;
                int tb = varintSize(n);
                for (int k = mark, prev = data; k < nSectionRuns; k += 2) {
                    tb += varintSize(sectionRuns[k] - prev) + varintSize(sectionRuns[k + 1] - sectionRuns[k]);
                    prev = sectionRuns[k + 1];
                }
                ensure(tb + 5);
                int p = putVarint(buf, pos, n);
                for (int k = mark, prev = data; k < nSectionRuns; k += 2) {
                    p = putVarint(buf, p, sectionRuns[k] - prev);
                    p = putVarint(buf, p, sectionRuns[k + 1] - sectionRuns[k]);
                    prev = sectionRuns[k + 1];
                }
                // the table's length as a varint written backwards: read from the section's end
                int e = putVarint(buf, p, tb);
                for (int i = p, j = e - 1; i < j; i++, j--) {
                    byte t = buf[i];
                    buf[i] = buf[j];
                    buf[j] = t;
                }
                pos = e;
            }
            nSectionRuns = mark;
        }
        int external = 0; // arrays left external inside the section (a JDK class's writeObject) count too
        for (int k = extCount - 1; k >= 0 && extAt[k] > at; k--) {
            external += extLen[k];
        }
        Bytes.BE_I.set(buf, at, (pos - at - Wire.SECTION_HEADER + external) | flag);
        int before = (int) Bytes.BE_I.get(buf, at + 4);
        Bytes.BE_I.set(buf, at + 4, nextHandle - before);
    }

    /**
     * Stream mode: an object the current section's class writes itself (its section's table): one that starts
     * where the last ended extends that run, else it starts a new one.
     */
    private void writeSectionObject(Object obj, boolean unshared) throws IOException {
        int start = pos;
        sectionDirect = false; // what it holds is its own
        try {
            writeObject0(obj, unshared);
        } finally {
            sectionDirect = true;
        }
        // the current section's last run (an outer section's runs all end before this section's header)
        if (nSectionRuns > 0 && sectionRuns[nSectionRuns - 1] == start) {
            sectionRuns[nSectionRuns - 1] = pos;
            return;
        }
        if (nSectionRuns + 2 > sectionRuns.length) {
            sectionRuns = Arrays.copyOf(sectionRuns, sectionRuns.length * 2);
        }
        sectionRuns[nSectionRuns++] = start;
        sectionRuns[nSectionRuns++] = pos;
    }

    // ---------------------------------------------------------------- writeObject support

    @Override
    public void defaultWriteObject() throws IOException {
        if (curObj == null) {
            throw new NotActiveException("not in call to writeObject");
        }
        writeDefaultFields(curObj, curSlot);
    }

    @Override
    public ObjectOutputStream.PutField putFields() throws IOException {
        if (curObj == null) {
            throw new NotActiveException("not in call to writeObject");
        }
        if (curPut == null) {
            curPut = new PutFieldImpl(curSlot);
        }
        return curPut;
    }

    @Override
    public void writeFields() throws IOException {
        if (curPut == null) {
            throw new NotActiveException("no current PutField object");
        }
        PutFieldImpl p = curPut;
        Slot s = p.slot;
        for (int i = 0; i < s.codes.length; i++) {
            if (Bytes.size(s.codes[i]) != 0) {
                writePrimitive(s.codes[i], p.values[i]);
            }
        }
        boolean[] un = s.unshared;
        for (int i = 0; i < s.codes.length; i++) {
            if (Bytes.size(s.codes[i]) == 0) {
                writeObject0(p.values[i], un != null && un[i]);
            }
        }
    }

    /** The JDK's PutField contract over a slot's declared serializable fields. */
    private final class PutFieldImpl extends ObjectOutputStream.PutField {
        final Slot slot;
        final Object[] values;

        PutFieldImpl(Slot slot) {
            this.slot = slot;
            this.values = new Object[slot.codes.length];
            for (int i = 0; i < values.length; i++) {
                values[i] = zero(slot.codes[i]);
            }
        }

        private int index(String name, Class<?> type) {
            for (int i = 0; i < slot.names.length; i++) {
                if (slot.names[i].equals(name)) {
                    char c = slot.codes[i];
                    boolean ok = type == null ? (c == 'L' || c == '[') : Bytes.size(c) != 0 && slot.types[i] == type;
                    if (ok) {
                        return i;
                    }
                }
            }
            throw new IllegalArgumentException("no such field " + name + " with type "
                    + (type == null ? "Object" : type.getName()));
        }

        @Override public void put(String name, boolean val) { values[index(name, boolean.class)] = val; }
        @Override public void put(String name, byte val) { values[index(name, byte.class)] = val; }
        @Override public void put(String name, char val) { values[index(name, char.class)] = val; }
        @Override public void put(String name, short val) { values[index(name, short.class)] = val; }
        @Override public void put(String name, int val) { values[index(name, int.class)] = val; }
        @Override public void put(String name, long val) { values[index(name, long.class)] = val; }
        @Override public void put(String name, float val) { values[index(name, float.class)] = val; }
        @Override public void put(String name, double val) { values[index(name, double.class)] = val; }
        @Override public void put(String name, Object val) { values[index(name, null)] = val; }

        @Override
        @Deprecated
        public void write(ObjectOutput out) throws IOException {
            if (out != RemoraObjectOutput.this) {
                throw new IllegalArgumentException("wrong stream");
            }
            writeFields();
        }
    }

    static Object zero(char code) {
        switch (code) {
            case 'Z': return Boolean.FALSE;
            case 'B': return (byte) 0;
            case 'C': return (char) 0;
            case 'S': return (short) 0;
            case 'I': return 0;
            case 'J': return 0L;
            case 'F': return 0f;
            case 'D': return 0d;
            default: return null;
        }
    }

    private void writePrimitive(char code, Object v) {
        switch (code) {
            case 'Z': writeBoolean((Boolean) v); break;
            case 'B': writeByte((Byte) v); break;
            case 'C': writeChar((Character) v); break;
            case 'S': writeShort((Short) v); break;
            case 'I': writeInt((Integer) v); break;
            case 'J': writeLong((Long) v); break;
            case 'F': writeFloat((Float) v); break;
            default: writeDouble((Double) v); break;
        }
    }

    @Override
    protected boolean enableReplaceObject(boolean enable) throws SecurityException {
        boolean was = super.enableReplaceObject(enable);
        replaceEnabled = enable;
        return was;
    }

    /** True once {@link #enableReplaceObject(boolean)} turned replacement on. */
    protected final boolean replaceEnabled() {
        return replaceEnabled;
    }

    @Override
    public void reset() throws IOException {
        if (depth > 0 || curObj != null) {
            throw new IOException("stream active");
        }
        if (sink != null) {
            emitFrame();
            nextFlags |= Wire.F_HANDLES_RESET;
        }
        handles.clear();
        nextHandle = 0;
        if (subs != null) {
            subs.clear();
        }
    }

    @Override
    public void useProtocolVersion(int version) {
        // one format; nothing to choose
    }

    // ---------------------------------------------------------------- primitives and buffer

    /** Makes room for n more bytes. Called by generated codecs. */
    final void ensure(int n) {
        if (buf.length - pos < n) {
            grow(n);
        }
    }

    private void grow(int n) {
        long need = (long) pos + n;
        if (need > MessageTooLargeError.MAX_BYTES) {
            throw new MessageTooLargeError(need);
        }
        byte[] k = kept.take(need);
        if (k != null) {
            System.arraycopy(buf, 0, k, 0, pos);
            buf = k;
            return;
        }
        buf = Arrays.copyOf(buf, (int) Math.max(need, Math.min(MessageTooLargeError.MAX_BYTES, buf.length * 2L)));
    }

    private void writeVarint(int v) {
        ensure(5);
        pos = putVarint(buf, pos, v);
    }

    static int putVarint(byte[] b, int p, int v) {
        while ((v & ~0x7F) != 0) {
            b[p++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        b[p++] = (byte) v;
        return p;
    }

    static int varintSize(int v) {
        int n = 1;
        while ((v & ~0x7F) != 0) {
            n++;
            v >>>= 7;
        }
        return n;
    }

    @Override
    public void write(int val) {
        ensure(1);
        buf[pos++] = (byte) val;
    }

    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        ensure(len);
        System.arraycopy(b, off, buf, pos, len);
        pos += len;
    }

    @Override
    public void writeBoolean(boolean v) {
        ensure(1);
        buf[pos++] = (byte) (v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        ensure(1);
        buf[pos++] = (byte) v;
    }

    @Override
    public void writeShort(int v) {
        ensure(2);
        Bytes.NS.set(buf, pos, (short) v);
        pos += 2;
    }

    @Override
    public void writeChar(int v) {
        ensure(2);
        Bytes.NC.set(buf, pos, (char) v);
        pos += 2;
    }

    @Override
    public void writeInt(int v) {
        ensure(4);
        Bytes.NI.set(buf, pos, v);
        pos += 4;
    }

    @Override
    public void writeLong(long v) {
        ensure(8);
        Bytes.NJ.set(buf, pos, v);
        pos += 8;
    }

    @Override
    public void writeFloat(float v) {
        ensure(4);
        Bytes.NF.set(buf, pos, v);
        pos += 4;
    }

    @Override
    public void writeDouble(double v) {
        ensure(8);
        Bytes.ND.set(buf, pos, v);
        pos += 8;
    }

    @Override
    public void writeBytes(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) {
            buf[pos + i] = (byte) s.charAt(i);
        }
        pos += n;
    }

    @Override
    public void writeChars(String s) {
        int n = s.length();
        ensure(2 * n);
        for (int i = 0; i < n; i++) {
            Bytes.NC.set(buf, pos + 2 * i, s.charAt(i));
        }
        pos += 2 * n;
    }

    /** Strings written with writeUTF keep their full length (no 64 KB limit) in Remora's string encoding. */
    @Override
    public void writeUTF(String s) {
        writeString(java.util.Objects.requireNonNull(s), Wire.T_STRING_L1, Wire.T_STRING_U16);
    }

    @Override
    public void flush() throws IOException {
        if (sink != null) {
            if (depth == 0 && curObj == null) {
                emitFrame();
            }
            sink.flush();
        }
    }

    @Override
    protected void drain() {
        // the buffer is the message
    }

    @Override
    public void close() throws IOException {
        if (sink != null) {
            if (depth == 0) {
                emitFrame();
            }
            sink.close();
        }
    }

    /** Stream mode: writes the pending message as a frame [int length BE][message] and starts the next one. */
    private void emitFrame() throws IOException {
        if (pos == HEAD && newTypes == 0) {
            return;
        }
        finishCall();
        byte[] len = new byte[4];
        Bytes.BE_I.set(len, 0, msgLength);
        sink.write(len);
        sink.write(buf, msgOffset, msgLength);
        beginMessage();
    }
}

package dev.remora.serializer;

import java.io.EOFException;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.NotActiveException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.SerializedLambda;
import java.lang.reflect.Array;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;

/**
 * Remora's deserializing stream: an {@link ObjectInputStream} in subclass mode (a class's own
 * {@code readObject(ObjectInputStream)} receives it; {@code defaultReadObject}, {@code readFields},
 * {@code registerValidation}, {@code readFully}... behave as in the JDK) reading Remora's format from a byte array.
 *
 * <p>Per connection: one instance, reused for every call.
 * <pre>
 *   in.beginCall(bytes, off, len);    // or beginCall(ByteBuffer); reads the message's new type descriptors
 *   Object a = in.readObject(); ...   // as many as were written
 *   in.endCall();                     // drops references to the call's objects and to the caller's array
 * </pre>
 *
 * <p>Security: the stream's effective {@link ObjectInputFilter} ({@code jdk.serialFilter}, the filter factory,
 * {@link #setObjectInputFilter}) is consulted for every new object's class before it is created (a cached type id
 * does not skip the check), for array lengths before allocation, for back references, with depth, reference count
 * and bytes consumed; only Serializable classes are instantiated (through their serialization constructor);
 * descriptors and lengths from the peer are checked against the bytes present and the options' limits. Malformed
 * input ends in an IOException subclass saying what was wrong.
 */
public class RemoraObjectInput extends ObjectInputStream {
    private static final Object UNSHARED = new Object();
    private static final Object SKIPPED = new Object();
    private static final InvocationHandler DUMMY = new InvocationHandler() { // a class: nothing spun at start
        @Override
        public Object invoke(Object p, java.lang.reflect.Method m, Object[] a) {
            return null;
        }
    };

    /** Accessed by generated codecs. */
    byte[] buf;
    int pos;
    /** End of what may be read now: the message end, a section end, or pos while a readObject has no data. */
    int limit;
    private int end;

    private final ReadTypeTable types;
    private final SerializerOptions options;
    private boolean swap;
    private ByteOrder senderOrder = Bytes.NATIVE;
    private Object[] handles = new Object[64];
    private int nHandles;
    private int depth;
    private int deepest; // the deepest depth of the current top-level readObject: to tell a stack overflow
    /** Sections being read: reading past one is an OptionalDataException, as past JDK block data. */
    private int bounded;
    /** Stream mode: the last frame read ends inside a value whose write aborted ({@link Wire#F_CUT}). */
    private boolean cut;
    private long totalRefs;
    private int callStart;
    private long bytesBase;
    private boolean resolveEnabled;
    /** The application's ObjectInputStream subclass this stream-mode reader reads for, or null. */
    StreamHost host;
    /**
     * Per handle, the ClassNotFoundException its object carries (its class is missing here, or a field of it holds
     * such an object), as the JDK's handle table marks it; null until one is needed.
     */
    private ClassNotFoundException[] handleEx;
    /** The exception the value {@code readObject0} just returned carries, or null. */
    private ClassNotFoundException lastEx;
    /** The handle of the object whose fields or custom data are being read; -1: none. */
    private int curHandle = -1;
    /**
     * Reading a slot of a class without readObject: as the JDK's readSerialData, its fields are set only if the
     * object carries no ClassNotFoundException (a value of a missing class leaves them all unset, no type check).
     */
    private boolean atomicSlot;
    /**
     * JDK-8331224 (JDK 23 on): a class's fields are not set when the object carries a ClassNotFoundException; JDK 17
     * and 21 set them (and check their types) all the same. Remora does as the JDK it runs on.
     */
    private static final boolean UNSET_WHEN_MISSING = Runtime.version().feature() >= 23;
    /**
     * Names of the classes whose descriptor the JDK's reader would have read in this stream since its handles were
     * last cleared (the call, or the stream since its last reset): the filter saw them, and sees a back reference
     * for them now ({@link #describe}).
     */
    private final HashSet<String> described = new HashSet<>();
    /** The field type strings of those descriptors, shared the same way. */
    private final HashSet<String> typeStrings = new HashSet<>();
    private List<Object[]> validations;

    // the class whose readObject is running
    private Object curObj;
    private Slot curLocal;
    private RemoteType.Plan curPlan;
    private boolean curNoSection;
    private int curOuterLimit;
    private boolean curDefaultDone;

    /** Stream mode (remora.oos=fast). */
    private final InputStream source;
    private final Guard guard;
    private byte[] own;

    /** The connection's arrays made ahead (null: none). */
    private Spares spares;

    /**
     * Lets this reader take long primitive arrays from {@code s} instead of allocating them (see {@link Spares});
     * null: allocate every array.
     */
    public void spares(Spares s) {
        spares = s;
    }

    /** A stream for one connection's calls; the type table belongs to the connection. */
    public RemoraObjectInput(ReadTypeTable types, SerializerOptions options) throws IOException {
        this(types, options, null);
    }

    RemoraObjectInput(ReadTypeTable types, SerializerOptions options, InputStream source) throws IOException {
        super();
        this.types = types;
        this.options = options;
        this.source = source;
        if (options.boundArraysByMessage()) {
            guard = new Guard(getObjectInputFilter());
            if (!FilterSlot.set(this, guard)) {
                setObjectInputFilter(guard);
            }
        } else {
            guard = null;
        }
        if (source != null) {
            own = new byte[options.initialBufferSize()];
            buf = own;
            pos = limit = end = 0;
        }
    }

    /** Arrays received apart from the current message (provideArrays), the next one to take. */
    private Object[] provided;
    private int[] providedAt;
    private int providedCount;
    private int providedNext;
    private long apartLeft; // their bytes not read yet: the message's rest, as the array guard bounds lengths by it

    public ReadTypeTable typeTable() {
        return types;
    }

    /** Starts reading one message: b[off, off+len) must stay unchanged until {@link #endCall()}. */
    public void beginCall(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (spares != null) {
            spares.begin();
        }
        clearHandles();
        providedCount = 0;
        providedNext = 0;
        apartLeft = 0;
        buf = b;
        pos = off;
        limit = end = off + len;
        callStart = off;
        bytesBase = 0;
        depth = 0;
        deepest = 0;
        bounded = 0;
        totalRefs = 0;
        curObj = null;
        curLocal = null;
        curPlan = null;
        curNoSection = false;
        validations = null;
        readMessageHeader();
    }

    /** Starts reading one message: the buffer's remaining bytes (its position moves to its limit). */
    public void beginCall(ByteBuffer bb) throws IOException {
        int n = bb.remaining();
        if (bb.hasArray()) {
            beginCall(bb.array(), bb.arrayOffset() + bb.position(), n);
        } else {
            if (own == null || own.length < n) {
                own = new byte[Math.max(n, options.initialBufferSize())];
            }
            bb.duplicate().get(own, 0, n);
            beginCall(own, 0, n);
        }
        bb.position(bb.limit());
    }

    /**
     * Primitive arrays of the current message that the transport received apart from its bytes: the message lacks
     * their elements, and {@code arrays[k]} is read where its elements would start, at {@code at[k]} in the array
     * given to {@link #beginCall(byte[], int, int)} (ascending). Its type and length must be what the message says
     * there. For the current call only; a writer's {@link RemoraObjectOutput#pieceElement} says which of its pieces
     * a sender can send so, and {@link PrimitiveArrays} makes and fills them.
     */
    public void provideArrays(Object[] arrays, int[] at, int count) {
        provided = arrays;
        providedAt = at;
        providedCount = count;
        providedNext = 0;
        apartLeft = 0;
        for (int k = 0; k < count; k++) {
            apartLeft += (long) Array.getLength(arrays[k]) * PrimitiveArrays.size(PrimitiveArrays.code(arrays[k]));
        }
    }

    /** Ends the call: forgets its objects and the caller's array. */
    public void endCall() {
        clearHandles();
        provided = null;
        providedAt = null;
        providedCount = 0;
        providedNext = 0;
        apartLeft = 0;
        buf = own;
        pos = limit = end = 0;
        curObj = null;
        validations = null;
        // a connection's reader outlives its calls: it must not keep a dropped deployment's classes or loaders
        curLocal = null;
        curPlan = null;
        lastEx = null;
        scopeDefault = null;
        scopeContext = null;
    }

    /** Bytes of the current message not read yet. */
    public int remaining() {
        return end - pos;
    }

    private void clearHandles() {
        types.settle(); // a message (or a stream's stretch) is over: what it resolved the table may keep softly
        if (nHandles > 0) {
            Arrays.fill(handles, 0, nHandles, null);
            if (handleEx != null) {
                Arrays.fill(handleEx, 0, Math.min(nHandles, handleEx.length), null);
            }
            nHandles = 0;
        }
        if (!described.isEmpty()) {
            described.clear();
            typeStrings.clear();
        }
    }

    private void readMessageHeader() throws IOException {
        int flags = u8();
        if ((flags & ~Wire.F_KNOWN) != 0) {
            throw new StreamCorruptedException(String.format("invalid Remora message flags: %02X", flags));
        }
        cut = (flags & Wire.F_CUT) != 0;
        boolean le = (flags & Wire.F_LITTLE_ENDIAN) != 0;
        senderOrder = le ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        swap = senderOrder != Bytes.NATIVE;
        if ((flags & Wire.F_TYPES_RESET) != 0) {
            types.clear();
        }
        if ((flags & Wire.F_HANDLES_RESET) != 0) {
            clearHandles();
        }
        int n = readVarint();
        if (n > end - pos) {
            throw new StreamCorruptedException("message claims " + n + " type descriptors in " + (end - pos)
                    + " bytes");
        }
        for (int i = 0; i < n; i++) {
            int dlen = readVarint();
            if (dlen > options.maxDescriptorBytes() || dlen > end - pos || dlen == 0) {
                throw new StreamCorruptedException("type descriptor of " + dlen + " bytes (limit "
                        + options.maxDescriptorBytes() + ", " + (end - pos) + " left): "
                        + "the connection must be reset");
            }
            types.add(RemoteType.parse(buf, pos, dlen, options), options.maxTypes());
            pos += dlen;
        }
    }

    // ---------------------------------------------------------------- objects

    @Override
    protected final Object readObjectOverride() throws IOException, ClassNotFoundException {
        return readTop(false);
    }

    @Override
    public Object readUnshared() throws IOException, ClassNotFoundException {
        return readTop(true);
    }

    private Object readTop(boolean unshared) throws IOException, ClassNotFoundException {
        if (buf == null) {
            throw new IOException("no call in progress: call beginCall(...) before reading");
        }
        boolean top = depth == 0;
        if (top && source != null && pos >= limit) {
            pullFrame();
        }
        try {
            Object o = readObject0(unshared);
            ClassNotFoundException ex = lastEx;
            if (ex != null) {
                // as the JDK: the object (or one it holds) is of a class missing here; the read went on to its end,
                // so the stream stays usable, and the caller (a class's readObject, or the application) gets this
                markEx(curHandle, ex);
                throw ex;
            }
            if (top && validations != null) {
                runValidations();
            }
            return o;
        } catch (StackOverflowError e) {
            if (!top || !overflowed(e, deepest)) {
                throw e; // one that a class's own code threw (a record constructor, readObject): the JDK passes it on
            }
            // the stack ran out before maxDepth: name what did, and the fix (as for the JDK's own reader)
            throw new InvalidObjectException("object graph too deep for this thread's stack: it ran out "
                    + deepest + " objects deep; a larger thread stack (-Xss) lets such a graph through");
        } finally {
            if (top) {
                validations = null;
                depth = 0;
                deepest = 0;
            }
        }
    }

    /**
     * Whether the JVM threw {@code e} because this thread's stack ran out (a graph too deep): such an error has no
     * message, and a trace as deep as the JVM records (1024 frames by default) or none, or it came while the graph was
     * {@value #OVERFLOW_DEPTH} or more objects deep (once, in a full test run, such an overflow's trace was shorter);
     * one that code threw itself has a message or a short trace, near the top of the graph.
     */
    static boolean overflowed(StackOverflowError e, int deepest) {
        if (e.getMessage() != null) {
            return false;
        }
        int frames = e.getStackTrace().length;
        return frames == 0 || frames >= 512 || deepest >= OVERFLOW_DEPTH;
    }

    static final int OVERFLOW_DEPTH = 256;

    /** Reference field of a generated codec. */
    final Object readFieldObject() throws IOException, ClassNotFoundException {
        Object v = readObject0(false);
        if (lastEx != null) {
            markEx(curHandle, lastEx);
        }
        if (atomicSlot && handleEx != null && exOf(curHandle) != null) {
            return null; // the JDK sets none of this slot's fields (see atomicSlot)
        }
        return v;
    }

    final Object readObject0(boolean unshared) throws IOException, ClassNotFoundException {
        if (pos >= limit) {
            abortedAtCut(); // an object where an aborted write's data stops: the JDK reads its TC_EXCEPTION there
            if (limit < end || bounded > 0 || curObj != null) {
                throw JdkSupport.optionalDataEof();
            }
            throw new EOFException("end of message: no more objects to read");
        }
        if (depth >= options.maxDepth()) {
            throw new InvalidObjectException("object graph deeper than " + options.maxDepth()
                    + " (SerializerOptions.maxDepth)");
        }
        depth++;
        if (depth > deepest) {
            deepest = depth;
        }
        totalRefs++;
        lastEx = null;
        try {
            byte tag = buf[pos++];
            switch (tag) {
                case Wire.T_NULL:
                    return null;
                case Wire.T_REF:
                    return readRef(unshared);
                case Wire.T_STRING_L1:
                case Wire.T_STRING_U16: {
                    String s = readStringBody(tag);
                    int h = reserve(unshared);
                    set(h, s, unshared);
                    return checkResolve(s, h, unshared);
                }
                case Wire.T_CLASS: {
                    RemoteType t = readType();
                    try {
                        resolve(t);
                    } catch (ClassNotFoundException e) {
                        describe(t);
                        markEx(reserve(unshared), e);
                        lastEx = e;
                        return null;
                    }
                    describe(t);
                    int h = reserve(unshared);
                    set(h, t.cl, unshared);
                    return checkResolve(t.cl, h, unshared);
                }
                case Wire.T_DESC: {
                    int n = readVarint();
                    int at = take(n);
                    byte[] b = Arrays.copyOfRange(buf, at, at + n);
                    ObjectStreamClass d = JdkDescriptors.read(b, this::resolveDescribed, getObjectInputFilter());
                    set(reserve(unshared), d, unshared);
                    return d; // as the JDK's readClassDesc: not passed to resolveObject
                }
                case Wire.T_ENUM:
                    return readEnum(unshared);
                case Wire.T_ARRAY:
                    return readArray(unshared);
                case Wire.T_OBJECT:
                    return readOrdinary(unshared);
                default:
                    throw new StreamCorruptedException(String.format("invalid type code: %02X", tag));
            }
        } finally {
            depth--;
        }
    }

    private Object readRef(boolean unshared) throws IOException {
        int h = readVarint();
        if (h >= nHandles) {
            throw new StreamCorruptedException("invalid handle value: " + h + " (" + nHandles + " objects read)");
        }
        Object o = handles[h];
        if (o == UNSHARED) {
            throw new InvalidObjectException("cannot read back reference to unshared object");
        }
        if (o == SKIPPED) {
            throw new InvalidObjectException("back reference to an object that its class's readObject skipped");
        }
        if (unshared) {
            throw new InvalidObjectException("cannot read back reference as unshared");
        }
        filterCheck(null, -1);
        ClassNotFoundException ex = exOf(h);
        if (ex != null) {
            lastEx = ex;
            return null; // the JDK's lookupObject gives null for a handle marked with an exception
        }
        return o;
    }

    private Object readEnum(boolean unshared) throws IOException, ClassNotFoundException {
        RemoteType t = readType();
        try {
            resolve(t);
        } catch (ClassNotFoundException e) {
            describe(t);
            int h = reserve(unshared);
            readStringBody((byte) u8()); // the constant's name
            markEx(h, e);
            lastEx = e;
            return null;
        }
        if (t.kind != ClassInfo.ENUM) {
            throw new InvalidClassException(t.name, "non-enum class in an enum constant");
        }
        describe(t);
        int h = reserve(unshared);
        byte tag = (byte) u8();
        String name = readStringBody(tag);
        Object c = null;
        for (Object e : t.local.enumConstants) {
            if (((Enum<?>) e).name().equals(name)) {
                c = e;
                break;
            }
        }
        if (c == null) {
            throw new InvalidObjectException("enum constant " + name + " does not exist in " + t.cl);
        }
        set(h, c, unshared);
        return checkResolve(c, h, unshared);
    }

    private Object readArray(boolean unshared) throws IOException, ClassNotFoundException {
        RemoteType t = readType();
        try {
            resolve(t);
        } catch (ClassNotFoundException e) {
            return skipUnresolvedArray(t, e, unshared);
        }
        if (t.kind != ClassInfo.ARRAY) {
            throw new StreamCorruptedException("array of non-array type " + t.name);
        }
        describe(t);
        int len = readVarint();
        filterCheck(t.cl, len);
        char cc = t.local.componentCode;
        int size = Bytes.size(cc) == 0 ? 1 : Bytes.size(cc);
        if (providedNext < providedCount && providedAt[providedNext] == pos) { // its elements came apart
            Object a = provided[providedNext];
            if (a == null) {
                throw new StreamCorruptedException("the array received apart at " + (pos - callStart)
                        + " was read before: a message with arrays received apart is read once");
            }
            if (PrimitiveArrays.code(a) != cc || Array.getLength(a) != len) {
                throw new StreamCorruptedException("the array received apart at " + (pos - callStart) + " is a "
                        + a.getClass().getSimpleName() + " of " + Array.getLength(a) + " elements, the message has "
                        + t.name + " of " + len);
            }
            provided[providedNext++] = null;
            long bytes = (long) len * size;
            apartLeft -= bytes;
            bytesBase += bytes; // the stream's bytes, as a filter counts them, include its elements
            int h = reserve(unshared);
            set(h, a, unshared);
            return checkResolve(a, h, unshared);
        }
        if ((long) len * size > limit - pos) {
            throw new StreamCorruptedException("array of " + len + " elements of " + t.name + " needs at least "
                    + (long) len * size + " bytes, the message has " + (limit - pos) + " left");
        }
        int h = reserve(unshared);
        Object a;
        int n = len * size;
        Object made = spares != null && n >= Spares.MIN_BYTES && Spares.primitive(cc) ? spares.take(cc, len) : null;
        switch (cc) {
            case 'B': {
                byte[] r = made != null ? (byte[]) made : new byte[len];
                System.arraycopy(buf, pos, r, 0, len);
                a = r;
                break;
            }
            case 'Z': {
                boolean[] r = made != null ? (boolean[]) made : new boolean[len];
                for (int i = 0; i < len; i++) {
                    r[i] = buf[pos + i] != 0;
                }
                a = r;
                break;
            }
            case 'C': {
                char[] r = made != null ? (char[]) made : new char[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asCharBuffer().get(r);
                }
                a = r;
                break;
            }
            case 'S': {
                short[] r = made != null ? (short[]) made : new short[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asShortBuffer().get(r);
                }
                a = r;
                break;
            }
            case 'I': {
                int[] r = made != null ? (int[]) made : new int[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else if (len < RemoraObjectOutput.SMALL_ARRAY) {
                    byte[] b = buf;
                    int p = pos;
                    if (swap) {
                        for (int i = 0; i < len; i++) {
                            r[i] = (int) Bytes.SI.get(b, p + 4 * i);
                        }
                    } else {
                        for (int i = 0; i < len; i++) {
                            r[i] = (int) Bytes.NI.get(b, p + 4 * i);
                        }
                    }
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asIntBuffer().get(r);
                }
                a = r;
                break;
            }
            case 'F': {
                float[] r = made != null ? (float[]) made : new float[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else if (len < RemoraObjectOutput.SMALL_ARRAY) {
                    byte[] b = buf;
                    int p = pos;
                    if (swap) {
                        for (int i = 0; i < len; i++) {
                            r[i] = (float) Bytes.SF.get(b, p + 4 * i);
                        }
                    } else {
                        for (int i = 0; i < len; i++) {
                            r[i] = (float) Bytes.NF.get(b, p + 4 * i);
                        }
                    }
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asFloatBuffer().get(r);
                }
                a = r;
                break;
            }
            case 'J': {
                long[] r = made != null ? (long[]) made : new long[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else if (len < RemoraObjectOutput.SMALL_ARRAY) {
                    byte[] b = buf;
                    int p = pos;
                    if (swap) {
                        for (int i = 0; i < len; i++) {
                            r[i] = (long) Bytes.SJ.get(b, p + 8 * i);
                        }
                    } else {
                        for (int i = 0; i < len; i++) {
                            r[i] = (long) Bytes.NJ.get(b, p + 8 * i);
                        }
                    }
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asLongBuffer().get(r);
                }
                a = r;
                break;
            }
            case 'D': {
                double[] r = made != null ? (double[]) made : new double[len];
                if (!swap && ArrayBytes.BULK) {
                    ArrayBytes.fromBytes(buf, pos, r, n);
                } else if (len < RemoraObjectOutput.SMALL_ARRAY) {
                    byte[] b = buf;
                    int p = pos;
                    if (swap) {
                        for (int i = 0; i < len; i++) {
                            r[i] = (double) Bytes.SD.get(b, p + 8 * i);
                        }
                    } else {
                        for (int i = 0; i < len; i++) {
                            r[i] = (double) Bytes.ND.get(b, p + 8 * i);
                        }
                    }
                } else {
                    ByteBuffer.wrap(buf, pos, n).order(senderOrder).asDoubleBuffer().get(r);
                }
                a = r;
                break;
            }
            default: {
                Object[] r = (Object[]) Array.newInstance(t.cl.getComponentType(), len);
                set(h, r, unshared);
                for (int i = 0; i < len; i++) {
                    r[i] = readObject0(false);
                    if (lastEx != null) {
                        markEx(h, lastEx);
                    }
                }
                lastEx = exOf(h);
                return lastEx != null ? r : checkResolve(r, h, unshared);
            }
        }
        pos += n;
        set(h, a, unshared);
        return checkResolve(a, h, unshared);
    }

    private Object readOrdinary(boolean unshared) throws IOException, ClassNotFoundException {
        RemoteType t = readType();
        try {
            resolve(t);
        } catch (ClassNotFoundException e) {
            return skipUnresolved(t, e, unshared);
        }
        describe(t);
        ClassInfo li = t.local;
        int h = reserve(unshared);
        int outer = curHandle;
        curHandle = h;
        try {
            return readOrdinary(t, li, h, unshared);
        } finally {
            curHandle = outer;
        }
    }

    private Object readOrdinary(RemoteType t, ClassInfo li, int h, boolean unshared)
            throws IOException, ClassNotFoundException {
        Object o;
        switch (t.kind) {
            case ClassInfo.PLAIN:
                if (li.kind == ClassInfo.RECORD) { // a class that became a record here
                    o = readRecordFromPlain(t, li);
                    set(h, o, unshared);
                    break;
                }
                o = readPlain(t, li, h, unshared);
                break;
            case ClassInfo.SPECIAL:
                if (li.special == ClassInfo.SP_ARRAYLIST) {
                    o = readArrayList(h, unshared);
                    break;
                }
                o = readSpecial(li);
                set(h, o, unshared);
                break;
            case ClassInfo.RECORD:
                if (li.kind == ClassInfo.PLAIN) { // a record that is an ordinary class here
                    o = readPlain(t, li, h, unshared);
                    break;
                }
                o = readRecord(t, li);
                set(h, o, unshared);
                break;
            case ClassInfo.EXTERNALIZABLE: {
                Constructor<?> c = li.ctor;
                if (c == null) {
                    throw new InvalidClassException(li.name, "no valid constructor");
                }
                o = newInstance(c, li);
                set(h, o, unshared);
                int saved = limit;
                int[] sec = openSection();
                Object so = curObj;
                curObj = null;
                try {
                    ((Externalizable) o).readExternal(this);
                } finally {
                    curObj = so;
                }
                closeSection(sec);
                limit = saved;
                break;
            }
            case ClassInfo.PROXY: {
                Object ih = readObject0(false);
                if (lastEx != null) {
                    markEx(h, lastEx);
                    return null;
                }
                if (!(ih instanceof InvocationHandler)) {
                    throw new InvalidObjectException("proxy handler is not an InvocationHandler: "
                            + (ih == null ? "null" : ih.getClass().getName()));
                }
                o = Proxy.newProxyInstance(t.proxyLoader, t.proxyInterfaces, (InvocationHandler) ih);
                set(h, o, unshared);
                break;
            }
            default:
                throw new StreamCorruptedException("type " + t.name + " cannot be read as an object (kind " + t.kind
                        + ")");
        }
        lastEx = exOf(h);
        if (lastEx != null) {
            return o; // no readResolve or resolveObject for an object that carries an exception, as in the JDK
        }
        if (li.readResolve != null) {
            Object rep;
            try {
                rep = li.readResolve.invokeExact(o);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IOException(e);
            }
            if (unshared && rep != null && rep.getClass().isArray()) {
                rep = cloneArray(rep);
            }
            if (rep != o) {
                if (rep != null) {
                    filterCheck(rep.getClass(), rep.getClass().isArray() ? Array.getLength(rep) : -1);
                }
                set(h, rep, unshared);
                o = rep;
            }
        }
        return checkResolve(o, h, unshared);
    }

    private static Object cloneArray(Object a) {
        int n = Array.getLength(a);
        Object c = Array.newInstance(a.getClass().getComponentType(), n);
        System.arraycopy(a, 0, c, 0, n);
        return c;
    }

    private Object newInstance(Constructor<?> c, ClassInfo li) throws IOException {
        try {
            return c.newInstance();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw (IOException) new InvalidClassException(li.name, "unable to create instance").initCause(cause);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw (IOException) new InvalidClassException(li.name, "unable to create instance").initCause(e);
        }
    }

    private Object readPlain(RemoteType t, ClassInfo li, int h, boolean unshared)
            throws IOException, ClassNotFoundException {
        Object o;
        if (li.allocate) {
            try {
                o = JdkSupport.ALLOC.allocateInstance(li.cl);
            } catch (InstantiationException e) {
                throw (IOException) new InvalidClassException(li.name, "unable to create instance").initCause(e);
            }
        } else {
            Constructor<?> c = li.ctor;
            if (c == null) {
                throw new InvalidClassException(li.name, "no valid constructor");
            }
            o = newInstance(c, li);
        }
        set(h, o, unshared);
        if (t.fastPlan) {
            Slot[] s = li.slots;
            boolean sa = atomicSlot;
            atomicSlot = UNSET_WHEN_MISSING;
            try {
                if (swap) {
                    for (int i = 0; i < s.length; i++) {
                        FieldCodec f = s[i].codec;
                        if (f != null) {
                            f.readSwapped(o, this);
                        }
                    }
                } else {
                    for (int i = 0; i < s.length; i++) {
                        FieldCodec f = s[i].codec;
                        if (f != null) {
                            f.read(o, this);
                        }
                    }
                }
            } catch (ClassCastException e) {
                for (Slot l : s) { // no readObject anywhere: as the JDK, which sets fields once all were read
                    resetFields(o, l);
                }
                throw e;
            } finally {
                atomicSlot = sa;
            }
            if (UNSET_WHEN_MISSING && handleEx != null && exOf(h) != null) {
                for (Slot l : s) { // a value of a missing class: the JDK set none of the object's fields
                    resetFields(o, l);
                }
            }
        } else {
            RemoteType.Plan[] plan = t.plan;
            int i = 0;
            try {
                for (; i < plan.length; i++) {
                    if (exOf(h) != null) {
                        // once the object carries an exception, the JDK reads the rest of its data without calling
                        // its classes' readObject or readObjectNoData
                        if (plan[i].remote != null) {
                            skipSlot(plan[i].remote);
                        }
                        continue;
                    }
                    readSlot(o, plan[i]);
                }
            } catch (ClassCastException e) {
                // the failing slot's fields were reset (readDefaultFields); the JDK sets the other slots' fields only
                // after all are read when no class below the top one has readObject or readObjectNoData
                if (deferredAsInJdk(plan)) {
                    for (int k = 0; k < i; k++) { // but a slot's own readObject (the top one's) sets at once
                        Slot l = plan[k].local;
                        if (l != null && l.readObject == null) {
                            resetFields(o, l);
                        }
                    }
                }
                throw e;
            }
        }
        return o;
    }

    /**
     * Whether the JDK would set this object's field values only after reading all of them (its best-effort failure
     * atomicity, {@code ObjectInputStream.readSerialData}): no class but the topmost serializable one has a
     * readObject or readObjectNoData method.
     */
    private static boolean deferredAsInJdk(RemoteType.Plan[] plan) {
        for (int k = 1; k < plan.length; k++) {
            Slot l = plan[k].local;
            if (l != null && (l.readObject != null || l.readObjectNoData != null)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Back to their defaults: the fields of slot {@code l} that reading set, when a later value of the object failed
     * its field's type (a ClassCastException), as the JDK, which checks all of a slot's values before setting any.
     * The object was new: its serializable fields were at their defaults before reading.
     */
    private static void resetFields(Object o, Slot l) {
        MethodHandle[] set = l.setters();
        if (set == null) {
            return;
        }
        for (int i = 0; i < set.length; i++) {
            Object dflt = defaultOf(l.types[i]);
            try {
                set[i].invoke(o, dflt);
            } catch (Throwable x) {
                // a field that cannot be written back keeps its value; the ClassCastException is thrown anyway
            }
        }
    }

    private void readSlot(Object o, RemoteType.Plan e) throws IOException, ClassNotFoundException {
        RemoteType.RemoteSlot r = e.remote;
        Slot l = e.local;
        if (r == null) {
            if (l.readObjectNoData != null) {
                try {
                    l.readObjectNoData.invokeExact(o);
                } catch (IOException | RuntimeException | Error x) {
                    throw x;
                } catch (Throwable x) {
                    throw new IOException(x);
                }
            }
            return;
        }
        if (l == null) {
            skipSlot(r);
            return;
        }
        int saved = limit;
        int[] sec = r.hasWriteObject ? openSection() : null;
        if (l.readObject != null) {
            Object so = curObj;
            Slot sl = curLocal;
            RemoteType.Plan sp = curPlan;
            boolean sn = curNoSection;
            int sOuter = curOuterLimit;
            boolean sd = curDefaultDone;
            curObj = o;
            curLocal = l;
            curPlan = e;
            curNoSection = sec == null;
            curOuterLimit = limit;
            curDefaultDone = false;
            if (curNoSection) {
                limit = pos; // the writer had no writeObject: only default fields, which defaultReadObject lifts
            }
            boolean done;
            boolean sa = atomicSlot;
            atomicSlot = false; // its defaultReadObject sets fields as the JDK's does, exception or not
            try {
                l.readObject.invokeExact(o, (ObjectInputStream) this);
            } catch (ClassNotFoundException x) {
                // as the JDK's readSerialData: the object carries it (after any it carried already) and the stream
                // goes on past the rest of this class's data; the top-level read throws it
                markEx(curHandle, x);
            } catch (IOException | RuntimeException | Error x) {
                throw x;
            } catch (Throwable x) {
                throw new IOException(x);
            } finally {
                atomicSlot = sa;
                done = curDefaultDone;
                curObj = so;
                curLocal = sl;
                curPlan = sp;
                curNoSection = sn;
                curOuterLimit = sOuter;
                curDefaultDone = sd;
            }
            if (sec == null) {
                limit = saved;
                if (!done) {
                    skipFields(r);
                }
            }
        } else {
            boolean sa = atomicSlot;
            atomicSlot = UNSET_WHEN_MISSING;
            try {
                readDefaultFields(o, l, e);
            } finally {
                atomicSlot = sa;
            }
            if (UNSET_WHEN_MISSING && handleEx != null && exOf(curHandle) != null) {
                resetFields(o, l); // a value of a missing class: the JDK set none of this slot's fields
            }
        }
        if (sec != null) {
            closeSection(sec);
        }
        limit = saved;
    }

    /** A field's default value, boxed (each on its own: a conditional expression would promote them all). */
    private static Object defaultOf(Class<?> t) {
        if (!t.isPrimitive()) {
            return null;
        }
        if (t == boolean.class) {
            return Boolean.FALSE;
        }
        if (t == char.class) {
            return (char) 0;
        }
        if (t == byte.class) {
            return (byte) 0;
        }
        if (t == short.class) {
            return (short) 0;
        }
        if (t == int.class) {
            return 0;
        }
        if (t == long.class) {
            return 0L;
        }
        if (t == float.class) {
            return 0f;
        }
        return 0d;
    }

    private void readDefaultFields(Object o, Slot l, RemoteType.Plan e) throws IOException, ClassNotFoundException {
        try {
            readDefaultFields0(o, l, e);
        } catch (ClassCastException x) {
            resetFields(o, l); // the JDK checks all of the slot's values before it sets any
            throw x;
        }
    }

    private void readDefaultFields0(Object o, Slot l, RemoteType.Plan e) throws IOException, ClassNotFoundException {
        RemoteType.RemoteSlot r = e.remote;
        FieldCodec codec = l.codec;
        if (e.sameLayout && codec != null) {
            if (swap) {
                codec.readSwapped(o, this);
            } else {
                codec.read(o, this);
            }
        } else if (l.setters() != null) {
            MethodHandle[] set = l.setters();
            int[] map = e.map;
            for (int i = 0; i < r.codes.length; i++) {
                if (Bytes.size(r.codes[i]) != 0) {
                    Object v = readPrimitive(r.codes[i]);
                    if (map[i] >= 0) {
                        setField(set[map[i]], o, v);
                    }
                }
            }
            boolean[] un = l.unshared;
            for (int i = 0; i < r.codes.length; i++) {
                if (Bytes.size(r.codes[i]) == 0) {
                    Object v = readObject0(un != null && map[i] >= 0 && un[map[i]]); // the local field's flag
                    if (map[i] >= 0) {
                        if (lastEx != null) {
                            markEx(curHandle, lastEx); // only a field this side has makes its object depend on it
                        }
                        if (atomicSlot && handleEx != null && exOf(curHandle) != null) {
                            continue; // the JDK sets none of this slot's fields (see atomicSlot)
                        }
                        setField(set[map[i]], o, v);
                    }
                }
            }
        } else if (l.jdkDefaultRead != null) {
            Object so = curObj;
            Slot sl = curLocal;
            RemoteType.Plan sp = curPlan;
            boolean sn = curNoSection;
            curObj = o;
            curLocal = l;
            curPlan = e;
            curNoSection = false;
            try {
                l.jdkDefaultRead.invokeExact(o, (ObjectInputStream) this);
            } catch (IOException | ClassNotFoundException | RuntimeException | Error x) {
                throw x;
            } catch (Throwable x) {
                throw new IOException(x);
            } finally {
                curObj = so;
                curLocal = sl;
                curPlan = sp;
                curNoSection = sn;
            }
        } else if (r.codes.length > 0) {
            throw new InvalidClassException(l.cl.getName(), "cannot reach its fields (" + l.accessProblem
                    + "): open its package to Remora's module, or use remora.serializer=jdk");
        }
    }

    private static void setField(MethodHandle setter, Object o, Object v) throws IOException {
        try {
            setter.invokeExact(o, v);
        } catch (ClassCastException x) {
            throw x;
        } catch (NullPointerException x) {
            throw new InvalidObjectException("null for a primitive field");
        } catch (IOException | RuntimeException | Error x) {
            throw x;
        } catch (Throwable x) {
            throw new IOException(x);
        }
    }

    /** Reads and drops a slot's default fields (objects are read: they take handles). */
    private void skipFields(RemoteType.RemoteSlot r) throws IOException, ClassNotFoundException {
        take(r.primBytes);
        for (int i = 0; i < r.codes.length; i++) {
            if (Bytes.size(r.codes[i]) == 0) {
                readObject0(false);
            }
        }
    }

    private void skipSlot(RemoteType.RemoteSlot r) throws IOException, ClassNotFoundException {
        if (r.hasWriteObject) {
            int saved = limit;
            int[] sec = openSection();
            closeSection(sec);
            limit = saved;
        } else {
            skipFields(r);
        }
    }

    /**
     * Reads a section header, bounds reading to the section; returns {end, handle count when done} and, in stream
     * mode, {where its table of runs of objects starts, how many}.
     */
    private int[] openSection() throws IOException {
        int p = take(Wire.SECTION_HEADER);
        int len = (int) Bytes.BE_I.get(buf, p);
        int count = (int) Bytes.BE_I.get(buf, p + 4);
        boolean cutHere = source != null && len < 0; // stream mode: its data ends at a failed write, no table
        len &= source != null ? 0x7FFFFFFF : -1;
        if (len < 0 || len > limit - pos || count < 0 || count > len) {
            throw new StreamCorruptedException("bad custom data section: " + len + " bytes, " + count
                    + " objects, " + (limit - pos) + " bytes left");
        }
        bounded++;
        int end = pos + len;
        if (source == null) {
            limit = end;
            return new int[] {end, nHandles + count};
        }
        int table = end;
        int tableEnd = end;
        if (!cutHere) {
            // the table's length, a varint written backwards at the section's end
            int tl = 0;
            for (int shift = 0;; shift += 7) {
                if (tableEnd <= pos || shift > 28) {
                    throw new StreamCorruptedException("bad custom data section: " + len + " bytes, no table");
                }
                int x = buf[--tableEnd] & 0xFF;
                tl |= (x & 0x7F) << shift;
                if ((x & 0x80) == 0) {
                    break;
                }
            }
            table = tableEnd - tl;
            if (tl < 1 || table < pos) {
                throw new StreamCorruptedException("bad custom data section: " + len + " bytes, table of " + tl);
            }
        }
        int[] sec = {end, nHandles + count, cutHere ? -1 : table, pos, tableEnd};
        limit = table;
        return sec;
    }

    /** Skips what the class did not read and keeps handle numbering in step with the writer. */
    private void closeSection(int[] sec) throws IOException {
        if (sec.length > 2 && pos < sec[2]) {
            readUnreadObjects(sec);
        }
        bounded--;
        pos = sec[0];
        if (nHandles > sec[1]) {
            throw new StreamCorruptedException("custom data section holds more objects than its header says");
        }
        while (nHandles < sec[1]) {
            int h = reserve(false);
            handles[h] = SKIPPED;
        }
    }

    /**
     * Stream mode, as the JDK's skipCustomData: the objects of a section that its class left unread are read (they
     * and what they hold take their handles; one of a missing class carries its ClassNotFoundException to later
     * back references) and dropped; they do not make the object whose data this is fail.
     */
    private void readUnreadObjects(int[] sec) throws IOException {
        int resume = pos;
        pos = sec[2];
        limit = sec[4];
        int n = readVarint();
        if (n > limit - pos) {
            throw new StreamCorruptedException("custom data section claims " + n + " runs of objects");
        }
        int[] runs = new int[2 * n];
        for (int k = 0; k < runs.length; k++) {
            runs[k] = readVarint();
        }
        int prev = sec[3]; // the start of the data
        for (int k = 0; k < runs.length; k += 2) {
            runs[k] += prev;
            runs[k + 1] += runs[k];
            prev = runs[k + 1];
        }
        limit = sec[2];
        pos = resume;
        for (int k = 0; k < runs.length; k += 2) {
            int start = runs[k];
            int end = runs[k + 1];
            if (start < sec[3] || end > sec[2] || end < start) {
                throw new StreamCorruptedException("custom data section's run of objects " + k / 2
                        + " lies outside it");
            }
            if (end <= pos) {
                continue; // read by the class
            }
            pos = Math.max(pos, start); // the class stopped between two objects of the run, or before it
            while (pos < end) {
                ClassNotFoundException ex = lastEx;
                try {
                    readObject0(false);
                } catch (ClassNotFoundException e) {
                    // the object's handle carries it
                } finally {
                    lastEx = ex;
                }
            }
            if (pos != end) {
                throw new StreamCorruptedException("custom data section's objects overrun their run");
            }
        }
    }

    /** A class's data read into the record of its name here (see resolve). */
    private Object readRecordFromPlain(RemoteType t, ClassInfo li) throws IOException, ClassNotFoundException {
        int n = t.slots.length;
        for (int i = 0; i < n - 1; i++) {
            skipSlot(t.slots[i]);
        }
        if (n == 0) {
            return readRecord(new RemoteType.RemoteSlot(t.name, 0, false, new char[0], new String[0]), t.recordMap,
                    li);
        }
        RemoteType.RemoteSlot last = t.slots[n - 1];
        if (!last.hasWriteObject) {
            return readRecord(last, t.recordMap, li);
        }
        int saved = limit;
        int[] sec = openSection(); // its writeObject's data: the default fields first, the rest is dropped
        Object o = readRecord(last, t.recordMap, li);
        closeSection(sec);
        limit = saved;
        return o;
    }

    private Object readRecord(RemoteType t, ClassInfo li) throws IOException, ClassNotFoundException {
        return readRecord(t.record, t.recordMap, li);
    }

    private Object readRecord(RemoteType.RemoteSlot r, int[] map, ClassInfo li)
            throws IOException, ClassNotFoundException {
        int n = li.recNames.length;
        Object[] args = new Object[n];
        for (int i = 0; i < n; i++) {
            args[i] = RemoraObjectOutput.zero(li.recCodes[i]);
        }
        for (int i = 0; i < r.codes.length; i++) {
            if (Bytes.size(r.codes[i]) != 0) {
                Object v = readPrimitive(r.codes[i]);
                if (map[i] >= 0) {
                    args[map[i]] = v;
                }
            }
        }
        for (int i = 0; i < r.codes.length; i++) {
            if (Bytes.size(r.codes[i]) == 0) {
                Object v = readObject0(false);
                if (map[i] >= 0) {
                    if (lastEx != null) {
                        markEx(curHandle, lastEx);
                    }
                    args[map[i]] = v;
                }
            }
        }
        if (exOf(curHandle) != null) {
            return null; // the JDK does not construct a record whose components carry an exception
        }
        try {
            return li.recCtor.invokeExact(args);
        } catch (ClassCastException e) {
            throw e; // a component of the wrong type
        } catch (Exception e) { // as the JDK: what the canonical constructor throws, wrapped; an Error as it is
            throw (IOException) new InvalidObjectException(e.getMessage()).initCause(e);
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            throw (IOException) new InvalidObjectException("ReflectiveOperationException during deserialization")
                    .initCause(e);
        }
    }

    /** The list exists (and has its handle) before its elements are read, so elements may refer back to it. */
    private Object readArrayList(int h, boolean unshared) throws IOException, ClassNotFoundException {
        int n = readVarint();
        if (n > 0) {
            filterCheck(Object[].class, n); // ArrayList.readObject's checkArray, made for a non-empty list only
        }
        if (n > limit - pos) {
            throw new StreamCorruptedException("ArrayList of " + n + " elements in " + (limit - pos) + " bytes");
        }
        ArrayList<Object> l = new ArrayList<>(n);
        set(h, l, unshared);
        for (int i = 0; i < n; i++) {
            l.add(readObject0(false));
            if (lastEx != null) {
                markEx(h, lastEx);
            }
        }
        return l;
    }

    /**
     * A boxed primitive is a new object, as the JDK reads it (it allocates one and sets its value field), never one
     * of {@code valueOf}'s cached instances: two objects written stay two objects read, and an object read after a
     * {@code reset()} is not the one read before it.
     */
    @SuppressWarnings({"deprecation", "removal"})
    private Object readSpecial(ClassInfo li) throws IOException, ClassNotFoundException {
        switch (li.special) {
            case ClassInfo.SP_INT: return new Integer(readInt());
            case ClassInfo.SP_LONG: return new Long(readLong());
            case ClassInfo.SP_BOOLEAN: return new Boolean(readBoolean());
            case ClassInfo.SP_DOUBLE: return new Double(readDouble());
            case ClassInfo.SP_FLOAT: return new Float(readFloat());
            case ClassInfo.SP_SHORT: return new Short(readShort());
            case ClassInfo.SP_BYTE: return new Byte(readByte());
            case ClassInfo.SP_CHAR: return new Character(readChar());
            default: {
                // the JDK's fields in its order: the capturing class resolves as a Class value (the stream's
                // resolveClass, the filter), the strings are values with handles
                int kind = readInt();
                Object args = readObject0(false);
                if (!(args instanceof Object[])) {
                    throw new InvalidObjectException("lambda captured arguments are not an Object[]");
                }
                Object cc = readObject0(false);
                ClassNotFoundException missing = lastEx;
                String fic = lambdaString(readObject0(false));
                String fim = lambdaString(readObject0(false));
                String fis = lambdaString(readObject0(false));
                String ic = lambdaString(readObject0(false));
                String im = lambdaString(readObject0(false));
                String is = lambdaString(readObject0(false));
                String imt = lambdaString(readObject0(false));
                if (missing != null) {
                    markEx(curHandle, missing); // as the JDK: the lambda carries it, the read went on to its end
                    return null;
                }
                if (!(cc instanceof Class)) {
                    throw new InvalidObjectException("lambda capturing class is not a Class");
                }
                return new SerializedLambda((Class<?>) cc, fic, fim, fis, kind, ic, im, is, imt, (Object[]) args);
            }
        }
    }

    private static String lambdaString(Object o) throws InvalidObjectException {
        if (o != null && !(o instanceof String)) {
            throw new InvalidObjectException("lambda field is not a String: " + o.getClass().getName());
        }
        return (String) o;
    }

    private Object checkResolve(Object o, int h, boolean unshared) throws IOException {
        Object rep;
        if (host != null) {
            if (!host.resolvesObjects()) {
                return o;
            }
            rep = host.resolveObject(o);
        } else if (!resolveEnabled) {
            return o;
        } else {
            rep = resolveObject(o);
        }
        if (rep != o) {
            if (rep != null) {
                filterCheck(rep.getClass(), rep.getClass().isArray() ? Array.getLength(rep) : -1);
            }
            set(h, rep, unshared);
        }
        return rep;
    }

    private void markEx(int h, ClassNotFoundException e) {
        if (e == null || h < 0) {
            return;
        }
        if (handleEx == null || handleEx.length <= h) {
            handleEx = handleEx == null ? new ClassNotFoundException[Math.max(handles.length, h + 1)]
                    : Arrays.copyOf(handleEx, Math.max(handles.length, h + 1));
        }
        if (handleEx[h] == null) {
            handleEx[h] = e;
        }
    }

    private ClassNotFoundException exOf(int h) {
        ClassNotFoundException[] x = handleEx;
        return x == null || h < 0 || h >= x.length ? null : x[h];
    }

    /**
     * An object whose class is missing here, read as the JDK reads it: its data is read (and dropped) by the
     * stream's descriptor, its handle carries the exception, and null stands for it. Whoever holds it in a field this
     * side has (or reads it with readObject) gets the ClassNotFoundException; one whose field is gone here does not.
     */
    private Object skipUnresolved(RemoteType t, ClassNotFoundException e, boolean unshared)
            throws IOException, ClassNotFoundException {
        describe(t);
        int h = reserve(unshared);
        markEx(h, e);
        int outer = curHandle;
        curHandle = h;
        try {
            switch (t.kind) {
                case ClassInfo.PLAIN:
                    for (RemoteType.RemoteSlot r : t.slots) {
                        skipSlot(r);
                    }
                    break;
                case ClassInfo.RECORD:
                    skipFields(t.record);
                    break;
                case ClassInfo.EXTERNALIZABLE: {
                    int saved = limit;
                    closeSection(openSection());
                    limit = saved;
                    break;
                }
                case ClassInfo.PROXY:
                    readObject0(false); // the invocation handler
                    break;
                default:
                    throw e;
            }
        } finally {
            curHandle = outer;
        }
        lastEx = e;
        return null;
    }

    /** An array whose component class is missing here: its elements are read and dropped (see skipUnresolved). */
    private Object skipUnresolvedArray(RemoteType t, ClassNotFoundException e, boolean unshared)
            throws IOException, ClassNotFoundException {
        describe(t);
        int len = readVarint();
        filterCheck(null, len);
        if (len > limit - pos) {
            throw new StreamCorruptedException("array of " + len + " elements of " + t.name + " in " + (limit - pos)
                    + " bytes");
        }
        int h = reserve(unshared);
        markEx(h, e);
        for (int i = 0; i < len; i++) {
            readObject0(false);
        }
        lastEx = e;
        return null;
    }

    private int reserve(boolean unshared) {
        if (nHandles == handles.length) {
            handles = Arrays.copyOf(handles, handles.length * 2);
        }
        int h = nHandles++;
        handles[h] = unshared ? UNSHARED : null;
        return h;
    }

    private void set(int h, Object o, boolean unshared) {
        if (!unshared) {
            handles[h] = o;
        }
    }

    private RemoteType readType() throws IOException {
        RemoteType t = types.get(readVarint());
        if (t.loaderBound && (t.boundDefault != scopeDefault || t.boundContext != scopeContext)) {
            t = t.withLoaders(scopeDefault, scopeContext); // resolved with other loaders: not this read's classes
        }
        return t;
    }

    private boolean scoped;
    private ClassLoader scopeDefault;
    private ClassLoader scopeContext;

    /**
     * Names the class loaders the current read resolves classes with, where they can differ from read to read on one
     * connection (RMI: the thread's context class loader, and a client's default loader). A type the connection
     * resolved to a class of another user-defined loader is resolved again for these (and both resolutions kept), so
     * that objects exported from several class loaders of one JVM (an application server's deployments, plugins) get
     * each its own classes of a name, as with JDK serialization, which resolves every class of every stream. Classes
     * of the bootstrap and platform loaders resolve alike whatever the loaders. A reader that never calls this
     * resolves each type once per connection.
     */
    protected final void resolveWith(ClassLoader defaultLoader, ClassLoader contextLoader) {
        scoped = true;
        scopeDefault = defaultLoader;
        scopeContext = contextLoader;
    }

    // ---------------------------------------------------------------- resolution

    /**
     * Local class for a name from the peer; the default uses the options' {@link ClassResolver}. The RMI shim may
     * override this (it sees no ObjectStreamClass: Remora's descriptors are not the JDK's).
     */
    protected Class<?> resolveClassName(String name) throws IOException, ClassNotFoundException {
        return options.resolver().resolve(name);
    }

    /** A class the stream names: the application stream's resolveClass decides where there is one. */
    private Class<?> resolveNamed(String name, long suid) throws IOException, ClassNotFoundException {
        if (host != null) {
            Class<?> c = hostResolve(name, suid);
            if (c == null) {
                throw new ClassNotFoundException("null class");
            }
            return c;
        }
        return resolveClassName(name);
    }

    /**
     * The JDK's readNonProxyDesc as the application's subclass sees it: its readClassDescriptor, where it has one
     * (a ClassNotFoundException from it is an InvalidClassException), then its resolveClass with the descriptor
     * that returned.
     */
    private Class<?> hostResolve(String name, long suid) throws IOException, ClassNotFoundException {
        if (host.readsClassDescriptors()) {
            ObjectStreamClass d;
            try {
                d = host.readClassDescriptor(name, suid);
            } catch (ClassNotFoundException e) {
                throw (IOException) new InvalidClassException("failed to read class descriptor").initCause(e);
            }
            name = d.getName();
            suid = d.getSerialVersionUID();
        }
        return host.resolveClass(name, suid);
    }

    /**
     * {@code remora.oos=fast}: what the JDK's {@code readClassDescriptor()} gives the application's override that
     * calls it: the descriptor being read (its class name and serialVersionUID; Remora's stream has no JDK
     * descriptor bytes to read).
     */
    public ObjectStreamClass classDescriptorBeingRead() throws IOException {
        ObjectStreamClass d = host == null ? null : host.classDescriptorBeingRead();
        if (d == null) {
            throw new StreamCorruptedException("readClassDescriptor called where no class descriptor is read");
        }
        return d;
    }

    /** The class of a descriptor read as a value ({@link Wire#T_DESC}), resolved as this stream resolves. */
    private Class<?> resolveDescribed(ObjectStreamClass d) throws IOException, ClassNotFoundException {
        return resolveNamed(d.getName(), d.getSerialVersionUID());
    }

    private void resolve(RemoteType t) throws IOException, ClassNotFoundException {
        if (t.local != null) {
            return;
        }
        Class<?> cl;
        if (t.kind == ClassInfo.PROXY) {
            resolveProxy(t);
            cl = t.cl;
        } else {
            long suid = t.kind == ClassInfo.EXTERNALIZABLE ? t.svuid
                    : t.kind == ClassInfo.PLAIN && t.slots.length > 0 ? t.slots[t.slots.length - 1].svuid : 0;
            cl = resolveNamed(t.name, suid);
        }
        if (host != null && t.kind != ClassInfo.PLAIN) {
            // the JDK's reader resolves each superclass descriptor the writer sent (Number for Integer, Enum for an
            // enum, Proxy for a proxy class) through the application stream's resolveClass too
            for (Class<?> c = cl.getSuperclass(); c != null && Serializable.class.isAssignableFrom(c);
                    c = c.getSuperclass()) {
                hostResolve(c.getName(), ObjectStreamClass.lookupAny(c).getSerialVersionUID());
            }
        }
        ClassInfo li = ClassInfo.of(cl);
        switch (t.kind) {
            case ClassInfo.PLAIN:
                if (li.kind == ClassInfo.RECORD) {
                    // the JDK reads a class's stream data into a record of the same name: the last slot's fields,
                    // by name, into the canonical constructor; the superclasses' fields are read and dropped
                    if (li.problem != null) {
                        throw new InvalidClassException(t.name, li.problem);
                    }
                    RemoteType.RemoteSlot last = t.slots.length == 0 ? null : t.slots[t.slots.length - 1];
                    t.recordMap = last == null ? new int[0]
                            : mapFields(last.codes, last.names, li.recCodes, li.recNames, t.name);
                    break;
                }
                planPlain(t, t.slots, cl, li);
                break;
            case ClassInfo.RECORD:
                if (li.kind == ClassInfo.PLAIN) {
                    planPlain(t, new RemoteType.RemoteSlot[] {t.record}, cl, li); // its fields, by name
                    break;
                }
                if (li.kind != ClassInfo.RECORD) {
                    throw new InvalidClassException(t.name, "cannot bind record descriptor to a non-record class");
                }
                if (li.problem != null) {
                    throw new InvalidClassException(t.name, li.problem);
                }
                t.recordMap = mapFields(t.record.codes, t.record.names, li.recCodes, li.recNames, t.name);
                break;
            case ClassInfo.EXTERNALIZABLE: {
                if (li.kind != ClassInfo.EXTERNALIZABLE) {
                    throw new InvalidClassException(t.name, "Serializable incompatible with Externalizable");
                }
                long local = ObjectStreamClass.lookup(cl).getSerialVersionUID();
                if (local != t.svuid) {
                    throw svuidMismatch(cl.getName(), t.svuid, local);
                }
                break;
            }
            case ClassInfo.ENUM:
                if (!cl.isEnum()) {
                    throw new InvalidClassException(t.name, "cannot bind enum descriptor to a non-enum class");
                }
                break;
            case ClassInfo.ARRAY:
                if (!cl.isArray()) {
                    throw new InvalidClassException(t.name, "array descriptor for a non-array class");
                }
                break;
            case ClassInfo.SPECIAL:
                if (li.special != ClassInfo.specialOf(t.name)) {
                    throw new InvalidClassException(t.name, "resolved to an unexpected class " + cl.getName());
                }
                break;
            default:
                break;
        }
        t.cl = cl;
        t.local = li;
        ClassLoader loader = cl.getClassLoader();
        t.unloadable = ClassResolver.unloadable(loader);
        if (scoped && !t.loaderBound && ClassResolver.userDefined(loader)) {
            t.loaderBound = true; // another loader may have its own class of the name
            t.boundDefault = scopeDefault;
            t.boundContext = scopeContext;
        }
    }

    private void resolveProxy(RemoteType t) throws IOException, ClassNotFoundException {
        if (host != null && host.resolvesProxyClasses()) { // the application stream's resolveProxyClass decides
            Class<?> c = host.resolveProxyClass(t.interfaces.clone());
            if (c == null) {
                throw new ClassNotFoundException("null class");
            }
            if (!Proxy.isProxyClass(c)) {
                throw new InvalidClassException("Not a proxy");
            }
            t.cl = c;
            t.proxyInterfaces = c.getInterfaces();
            t.proxyLoader = c.getClassLoader();
            return;
        }
        Class<?>[] ifs = new Class<?>[t.interfaces.length];
        ClassLoader loader = null;
        boolean nonPublic = false;
        for (int i = 0; i < ifs.length; i++) {
            ifs[i] = resolveClassName(t.interfaces[i]);
            if (!ifs[i].isInterface()) {
                throw new InvalidClassException(t.interfaces[i], "proxy descriptor names a non-interface");
            }
            if (!Modifier.isPublic(ifs[i].getModifiers())) {
                ClassLoader l = ifs[i].getClassLoader();
                if (nonPublic && l != loader) {
                    throw new IllegalAccessError("conflicting non-public interface class loaders");
                }
                loader = l;
                nonPublic = true;
            }
        }
        if (!nonPublic) {
            loader = ifs.length > 0 && ifs[ifs.length - 1].getClassLoader() != null
                    ? ifs[ifs.length - 1].getClassLoader() : ClassLoader.getSystemClassLoader();
        }
        try {
            t.cl = Proxy.newProxyInstance(loader, ifs, DUMMY).getClass();
        } catch (IllegalArgumentException e) {
            throw new ClassNotFoundException(null, e);
        }
        t.proxyInterfaces = ifs;
        t.proxyLoader = loader;
    }

    private void planPlain(RemoteType t, RemoteType.RemoteSlot[] remotes, Class<?> cl, ClassInfo li)
            throws IOException, ClassNotFoundException {
        if (li.kind == ClassInfo.EXTERNALIZABLE) {
            throw new InvalidClassException(t.name, "Serializable incompatible with Externalizable");
        }
        if (li.kind != ClassInfo.PLAIN) {
            throw new InvalidClassException(t.name, li.serializable ? "incompatible kind of class"
                    : "class invalid for deserialization");
        }
        if (li.problem != null) {
            throw new InvalidClassException(t.name, li.problem);
        }
        Slot[] locals = li.slots;
        List<RemoteType.Plan> plan = new ArrayList<>();
        Class<?>[] slotClasses = new Class<?>[remotes.length];
        int next = 0;
        boolean fast = li.ctor != null && remotes.length == locals.length;
        for (int i = 0; i < remotes.length; i++) {
            RemoteType.RemoteSlot r = remotes[i];
            Class<?> rc;
            if (i == remotes.length - 1) {
                rc = cl;
            } else {
                try {
                    rc = resolveNamed(r.name, r.svuid);
                } catch (ClassNotFoundException e) {
                    rc = null;
                }
            }
            slotClasses[i] = rc;
            // the JDK binds a slot's data to the local superclass of the same name (getClassDataLayout0), not to
            // the class resolveClass gave: one from another loader, or none, still binds
            String searchName = rc != null ? rc.getName() : r.name;
            int j = -1;
            for (int k = next; k < locals.length; k++) {
                if (locals[k].cl.getName().equals(searchName)) {
                    j = k;
                    break;
                }
            }
            if (j < 0) {
                plan.add(new RemoteType.Plan(null, r, false, null));
                fast = false;
                continue;
            }
            for (int k = next; k < j; k++) {
                plan.add(new RemoteType.Plan(locals[k], null, false, null));
                fast = false;
            }
            Slot l = locals[j];
            if (l.svuid != r.svuid && t.kind != ClassInfo.RECORD) { // a record's stream carries no UID here
                throw svuidMismatch(l.cl.getName(), r.svuid, l.svuid);
            }
            int[] map = mapFields(r.codes, r.names, l.codes, l.names, l.cl.getName());
            boolean same = Arrays.equals(r.codes, l.codes) && Arrays.equals(r.names, l.names);
            plan.add(new RemoteType.Plan(l, r, same, map));
            if (!same || r.hasWriteObject || l.readObject != null || (l.codec == null && l.hasFields())
                    || j != i) {
                fast = false;
            }
            next = j + 1;
        }
        for (int k = next; k < locals.length; k++) {
            plan.add(new RemoteType.Plan(locals[k], null, false, null));
            fast = false;
        }
        t.plan = plan.toArray(new RemoteType.Plan[0]);
        t.fastPlan = fast;
        t.slotClasses = slotClasses;
    }

    // ---------------------------------------------------------------- filters as the JDK consults them

    /**
     * True where this reader emulates {@code sun.rmi.server.MarshalInputStream}, which reads each class's codebase
     * annotation with {@code readObject()} while it resolves the class: one more object reference per descriptor
     * for the filter (the annotation itself is null here: Remora sends none).
     */
    protected boolean readsClassAnnotations() {
        return false;
    }

    private boolean filtering() {
        ObjectInputFilter f = getObjectInputFilter();
        return f != null && !(f == guard && guard.next == null);
    }

    /**
     * The filter calls the JDK's reader makes where it reads {@code t}'s class descriptor (for an object, array,
     * enum constant or Class), with the same classes, depth and reference counts: a descriptor new to the stream is
     * checked (a proxy's interfaces first), then its superclass's descriptor is read one level deeper; one the
     * stream already had is a back reference, checked with no class. Remora sends a type once per connection, but
     * the filter sees what the JDK's per-stream descriptors would show it. Only the byte counts differ.
     */
    private void describe(RemoteType t) throws InvalidClassException {
        if (!filtering()) {
            return;
        }
        RemoteType.Descriptors d = t.descriptors;
        if (d == null) {
            d = t.descriptors = descriptorsOf(t);
        }
        describe(d, 0);
    }

    private void describe(RemoteType.Descriptors d, int i) throws InvalidClassException {
        if (i == d.names.length) {
            return; // TC_NULL: no superclass descriptor
        }
        if (!described.add(d.names[i])) {
            filterCheck(null, -1); // a back reference to the descriptor
            return;
        }
        for (String s : d.typeStrings[i]) {
            if (!typeStrings.add(s)) {
                filterCheck(null, -1); // a field type string the stream had
            }
        }
        if (readsClassAnnotations()) {
            totalRefs++;
        }
        if (i == 0 && d.interfaces != null) {
            for (Class<?> c : d.interfaces) {
                filterCheck(c, -1);
            }
        }
        filterCheck(d.classes[i], -1);
        totalRefs++;
        depth++;
        try {
            describe(d, i + 1);
            Class<?>[] supers = d.localSupers == null ? null : d.localSupers[i];
            if (supers != null) {
                for (Class<?> c : supers) {
                    filterCheck(c, -1);
                }
            }
        } finally {
            depth--;
        }
    }

    private static RemoteType.Descriptors descriptorsOf(RemoteType t) {
        if (t.kind == ClassInfo.PLAIN && (t.slotClasses != null || t.cl == null)) {
            int n = t.slots.length;
            Class<?>[] classes = new Class<?>[n];
            String[] names = new String[n];
            for (int i = 0; i < n; i++) { // the sender's slots are superclass first; descriptors subclass first
                classes[i] = t.slotClasses == null ? null : t.slotClasses[n - 1 - i];
                names[i] = t.slots[n - 1 - i].name;
            }
            Class<?>[][] supers = null;
            String[][] typeStrings = new String[n][];
            for (int i = 0; i < n; i++) {
                RemoteType.RemoteSlot r = t.slots[n - 1 - i];
                ObjectStreamClass local = classes[i] == null ? null : ObjectStreamClass.lookupAny(classes[i]);
                List<String> ts = new ArrayList<>();
                for (int f = 0; f < r.codes.length; f++) {
                    if (Bytes.size(r.codes[f]) == 0) {
                        ObjectStreamField lf = local == null ? null : local.getField(r.names[f]);
                        // a field this side lacks: its type is unknown, so it matches no other
                        ts.add(lf != null && !lf.isPrimitive() ? lf.getTypeString()
                                : "?" + names[i] + "." + r.names[f]);
                    }
                }
                typeStrings[i] = ts.toArray(new String[0]);
                if (classes[i] == null) {
                    continue;
                }
                Class<?> superLocal = null;
                for (int j = i + 1; j < n && superLocal == null; j++) {
                    superLocal = classes[j];
                }
                List<Class<?>> missing = new ArrayList<>();
                for (Class<?> c = classes[i].getSuperclass(); c != null && c != superLocal
                        && Serializable.class.isAssignableFrom(c); c = c.getSuperclass()) {
                    missing.add(c);
                }
                if (!missing.isEmpty()) {
                    if (supers == null) {
                        supers = new Class<?>[n][];
                    }
                    supers[i] = missing.toArray(new Class<?>[0]);
                }
            }
            return new RemoteType.Descriptors(classes, names, supers, null, typeStrings);
        }
        // the writer's own descriptors: the class, then each serializable superclass
        List<Class<?>> chain = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (Class<?> c = t.cl; c != null && (chain.isEmpty() || Serializable.class.isAssignableFrom(c));
                c = c.getSuperclass()) {
            chain.add(c);
            names.add(chain.size() == 1 ? t.name : c.getName());
        }
        String[][] typeStrings = new String[chain.size()][];
        for (int i = 0; i < typeStrings.length; i++) {
            List<String> ts = new ArrayList<>();
            for (ObjectStreamField f : ObjectStreamClass.lookupAny(chain.get(i)).getFields()) {
                if (!f.isPrimitive()) {
                    ts.add(f.getTypeString());
                }
            }
            typeStrings[i] = ts.toArray(new String[0]);
        }
        return new RemoteType.Descriptors(chain.toArray(new Class<?>[0]), names.toArray(new String[0]), null,
                t.kind == ClassInfo.PROXY ? t.proxyInterfaces : null, typeStrings);
    }

    private static InvalidClassException svuidMismatch(String name, long stream, long local) {
        return new InvalidClassException(name, "local class incompatible: stream classdesc serialVersionUID = "
                + stream + ", local class serialVersionUID = " + local);
    }

    /** Local index per remote field (by name), -1 when absent; a primitive type change is an error. */
    private static int[] mapFields(char[] rc, String[] rn, char[] lc, String[] ln, String cname)
            throws InvalidClassException {
        int[] map = new int[rc.length];
        for (int i = 0; i < rc.length; i++) {
            map[i] = -1;
            for (int j = 0; j < ln.length; j++) {
                if (ln[j].equals(rn[i])) {
                    boolean rp = Bytes.size(rc[i]) != 0;
                    boolean lp = Bytes.size(lc[j]) != 0;
                    if ((rp || lp) && rc[i] != lc[j]) {
                        throw new InvalidClassException(cname, "incompatible types for field " + rn[i]);
                    }
                    map[i] = j;
                    break;
                }
            }
        }
        return map;
    }

    // ---------------------------------------------------------------- filter

    /**
     * Sets this stream's own filter (composed with the JVM-wide one by the filter factory, as
     * {@link #setObjectInputFilter} does) when the array guard holds the stream filter slot; otherwise the same as
     * {@code setObjectInputFilter}.
     */
    public void setStreamFilter(ObjectInputFilter filter) {
        if (guard == null) {
            setObjectInputFilter(filter);
            return;
        }
        if (guard.streamSet) {
            throw new IllegalStateException("filter can not be set more than once");
        }
        guard.streamSet = true;
        ObjectInputFilter next = ObjectInputFilter.Config.getSerialFilterFactory().apply(guard.next, filter);
        if (guard.next != null && next == null) {
            throw new IllegalStateException("filter can not be replaced with null filter");
        }
        guard.next = next;
    }

    /**
     * Replaces the filter consulted after the array guard with {@code filter} as it is, without calling the filter
     * factory: for a reader whose filter is kept elsewhere ({@code remora.oos=fast} consults the application's own
     * ObjectInputStream, where {@code setObjectInputFilter} ran the factory already).
     *
     * @throws IllegalStateException without the array guard ({@link SerializerOptions#boundArraysByMessage()} off)
     */
    public void setEffectiveFilter(ObjectInputFilter filter) {
        if (guard == null) {
            throw new IllegalStateException("setEffectiveFilter needs SerializerOptions.boundArraysByMessage()");
        }
        guard.next = filter;
        guard.streamSet = true;
    }

    /** Bounds array lengths by the bytes left, then asks the effective filter. */
    private final class Guard implements ObjectInputFilter {
        ObjectInputFilter next;
        boolean streamSet;

        Guard(ObjectInputFilter next) {
            this.next = next;
        }

        @Override
        public Status checkInput(FilterInfo info) {
            if (!(info instanceof Info) && (info.references() != 0 || info.depth() != 0 || info.streamBytes() != 0)) {
                // Another stream's check. A class's readObject may keep this stream's filter for a stream of its own
                // (MarshalledObject does, for get(), which may run after this reader moved on). The JDK's own
                // checks on this reader say 0 for all three (it reads nothing through the JDK's fields); another
                // stream has read something before its first check. That stream's figures and the effective filter
                // decide, as with the JDK's stream, whose getObjectInputFilter() is that filter.
                return next == null ? Status.UNDECIDED : next.checkInput(info);
            }
            if (info.arrayLength() > 64 + 8L * (Math.max(0, end - pos) + apartLeft)) {
                return Status.REJECTED;
            }
            if (next == null) {
                return Status.UNDECIDED;
            }
            if (!(info instanceof Info)) {
                // the JDK's own check of an array a JDK class's readObject makes (HashMap's Map.Entry[],
                // ArrayDeque's Object[]: ObjectInputStream.checkArray): it knows nothing of this stream's depth and
                // references and says 0; the filter sees this reader's, as in a JDK stream
                info = new Info(info.serialClass(), info.arrayLength(), depth, totalRefs, bytesBase + (pos - callStart));
            }
            return next.checkInput(info);
        }

        @Override
        public String toString() {
            return "remora array guard, then " + next;
        }
    }

    private void filterCheck(Class<?> c, int arrayLength) throws InvalidClassException {
        ObjectInputFilter f = getObjectInputFilter();
        if (f == null || (f == guard && guard.next == null && arrayLength < 0)) {
            return;
        }
        ObjectInputFilter.Status s;
        RuntimeException ex = null;
        try {
            s = f.checkInput(new Info(c, arrayLength, depth, totalRefs, bytesBase + (pos - callStart)));
        } catch (RuntimeException e) {
            s = ObjectInputFilter.Status.REJECTED;
            ex = e;
        }
        if (s == null || s == ObjectInputFilter.Status.REJECTED) {
            InvalidClassException ice = new InvalidClassException("filter status: " + s);
            ice.initCause(ex);
            throw ice;
        }
    }

    private static final class Info implements ObjectInputFilter.FilterInfo {
        private final Class<?> c;
        private final long arrayLength;
        private final long depth;
        private final long refs;
        private final long bytes;

        Info(Class<?> c, long arrayLength, long depth, long refs, long bytes) {
            this.c = c;
            this.arrayLength = arrayLength;
            this.depth = depth;
            this.refs = refs;
            this.bytes = bytes;
        }

        @Override public Class<?> serialClass() { return c; }
        @Override public long arrayLength() { return arrayLength; }
        @Override public long depth() { return depth; }
        @Override public long references() { return refs; }
        @Override public long streamBytes() { return bytes; }
    }

    // ---------------------------------------------------------------- readObject support

    @Override
    public void defaultReadObject() throws IOException, ClassNotFoundException {
        if (curObj == null) {
            throw new NotActiveException("not in call to readObject");
        }
        if (curNoSection) {
            limit = curOuterLimit;
        }
        readDefaultFields(curObj, curLocal, curPlan);
        if (curNoSection) {
            limit = pos;
        }
        curDefaultDone = true;
        ClassNotFoundException ex = exOf(curHandle);
        if (ex != null) {
            throw ex; // a field holds an object of a missing class: the JDK's defaultReadObject says so
        }
    }

    @Override
    public ObjectInputStream.GetField readFields() throws IOException, ClassNotFoundException {
        if (curObj == null) {
            throw new NotActiveException("not in call to readObject");
        }
        if (curNoSection) {
            limit = curOuterLimit;
        }
        RemoteType.RemoteSlot r = curPlan.remote;
        Object[] values = new Object[r.codes.length];
        for (int i = 0; i < r.codes.length; i++) {
            if (Bytes.size(r.codes[i]) != 0) {
                values[i] = readPrimitive(r.codes[i]);
            }
        }
        boolean[] un = curLocal == null ? null : curLocal.unshared;
        int[] map = curPlan.map;
        ClassNotFoundException[] missing = null;
        for (int i = 0; i < r.codes.length; i++) {
            if (Bytes.size(r.codes[i]) == 0) {
                int local = map != null ? map[i] : i;
                values[i] = readObject0(un != null && local >= 0 && local < un.length && un[local]);
                if (lastEx != null) { // the value is of a class missing here: its holder learns it on get
                    if (missing == null) {
                        missing = new ClassNotFoundException[r.codes.length];
                    }
                    missing[i] = lastEx;
                }
            }
        }
        if (curNoSection) {
            limit = pos;
        }
        curDefaultDone = true;
        return new GetFieldImpl(curLocal, r, values, missing, this, curHandle);
    }

    /** The JDK's GetField contract: stream values by name, local defaults for fields the sender lacked. */
    private static final class GetFieldImpl extends ObjectInputStream.GetField {
        private final Slot local;
        private final RemoteType.RemoteSlot remote;
        private final Object[] values;
        private final ClassNotFoundException[] missing;
        private final RemoraObjectInput in;
        private final int handle;

        GetFieldImpl(Slot local, RemoteType.RemoteSlot remote, Object[] values, ClassNotFoundException[] missing,
                RemoraObjectInput in, int handle) {
            this.local = local;
            this.remote = remote;
            this.values = values;
            this.missing = missing;
            this.in = in;
            this.handle = handle;
        }

        @Override
        public ObjectStreamClass getObjectStreamClass() {
            return ObjectStreamClass.lookup(local.cl);
        }

        /** Index into values, -1 when the local class has the field but the stream has not. */
        private int index(String name, char code) {
            for (int i = 0; i < remote.names.length; i++) {
                if (remote.names[i].equals(name) && matches(remote.codes[i], code)) {
                    return i;
                }
            }
            for (int i = 0; i < local.names.length; i++) {
                if (local.names[i].equals(name) && matches(local.codes[i], code)) {
                    return -1;
                }
            }
            throw new IllegalArgumentException("no such field " + name + " with type " + typeName(code));
        }

        private static boolean matches(char have, char want) {
            return want == 'L' ? have == 'L' || have == '[' : have == want;
        }

        private static String typeName(char c) {
            switch (c) {
                case 'Z': return "boolean";
                case 'B': return "byte";
                case 'C': return "char";
                case 'S': return "short";
                case 'I': return "int";
                case 'J': return "long";
                case 'F': return "float";
                case 'D': return "double";
                default: return "class java.lang.Object";
            }
        }

        @Override
        public boolean defaulted(String name) {
            for (String n : remote.names) {
                if (n.equals(name)) {
                    return false;
                }
            }
            for (String n : local.names) {
                if (n.equals(name)) {
                    return true;
                }
            }
            throw new IllegalArgumentException("no such field " + name);
        }

        private Object v(String name, char code, Object dflt) {
            int i = index(name, code);
            return i < 0 ? dflt : values[i];
        }

        @Override public boolean get(String name, boolean val) { return (Boolean) v(name, 'Z', val); }
        @Override public byte get(String name, byte val) { return (Byte) v(name, 'B', val); }
        @Override public char get(String name, char val) { return (Character) v(name, 'C', val); }
        @Override public short get(String name, short val) { return (Short) v(name, 'S', val); }
        @Override public int get(String name, int val) { return (Integer) v(name, 'I', val); }
        @Override public long get(String name, long val) { return (Long) v(name, 'J', val); }
        @Override public float get(String name, float val) { return (Float) v(name, 'F', val); }
        @Override public double get(String name, double val) { return (Double) v(name, 'D', val); }
        /**
         * As the JDK's: the object whose readObject gets a value of a class missing here carries the
         * ClassNotFoundException (its top-level read throws it); the value is null, or, on JDKs whose
         * {@code GetField.get} declares ClassNotFoundException (unless {@code jdk.serialGetFieldCnfeReturnsNull}),
         * the exception is thrown.
         */
        @Override
        public Object get(String name, Object val) {
            int i = index(name, 'L');
            if (i < 0) {
                return val;
            }
            ClassNotFoundException ex = missing == null ? null : missing[i];
            if (ex == null) {
                return values[i];
            }
            in.markEx(handle, ex);
            if (GetFieldCnfe.THROWS) {
                throw JdkSupport.<RuntimeException>sneaky(ex);
            }
            return null;
        }
    }

    /** Whether this JDK's GetField.get(String, Object) throws a missing class's exception (JDK 25 on) or returns null. */
    private static final class GetFieldCnfe {
        static final boolean THROWS = throwsCnfe();

        private static boolean throwsCnfe() {
            if (Boolean.getBoolean("jdk.serialGetFieldCnfeReturnsNull")) {
                return false;
            }
            try {
                for (Class<?> t : ObjectInputStream.GetField.class.getMethod("get", String.class, Object.class)
                        .getExceptionTypes()) {
                    if (t == ClassNotFoundException.class) {
                        return true;
                    }
                }
            } catch (NoSuchMethodException | RuntimeException e) {
                // no such method: nothing to follow
            }
            return false;
        }
    }

    @Override
    public void registerValidation(ObjectInputValidation obj, int prio) throws NotActiveException,
            InvalidObjectException {
        if (depth == 0) {
            throw new NotActiveException("stream inactive");
        }
        if (obj == null) {
            throw new InvalidObjectException("null callback");
        }
        if (validations == null) {
            validations = new ArrayList<>();
        }
        validations.add(new Object[] {obj, prio});
    }

    private void runValidations() throws InvalidObjectException {
        List<Object[]> v = validations;
        validations = null;
        v.sort((a, b) -> Integer.compare((Integer) b[1], (Integer) a[1]));
        for (Object[] e : v) {
            ((ObjectInputValidation) e[0]).validateObject();
        }
    }

    @Override
    protected boolean enableResolveObject(boolean enable) throws SecurityException {
        boolean was = super.enableResolveObject(enable);
        resolveEnabled = enable;
        return was;
    }

    // ---------------------------------------------------------------- primitives

    /** Claims n bytes, returns where they start. Called by generated codecs. */
    final int take(int n) throws IOException {
        int p = pos;
        if (limit - p < n) {
            need(n);
            p = pos;
        }
        pos = p + n;
        return p;
    }

    private void need(int n) throws IOException {
        while (limit - pos < n) {
            if (source != null && limit == end && depth == 0 && curObj == null) {
                pullFrame();
                continue;
            }
            if (bounded == 0) {
                abortedAtCut(); // a value's own bytes (custom data, the JDK's block data, ends in EOFException)
            }
            throw new EOFException("unexpected end of data: need " + n + " bytes, " + (limit - pos) + " left"
                    + (limit < end ? " in this object's custom data" : ""));
        }
    }

    private int u8() throws IOException {
        return buf[take(1)] & 0xFF;
    }

    final int readVarint() throws IOException {
        int v = 0;
        for (int shift = 0; shift < 35; shift += 7) {
            int x = u8();
            v |= (x & 0x7F) << shift;
            if ((x & 0x80) == 0) {
                if (v < 0) {
                    break;
                }
                return v;
            }
        }
        throw new StreamCorruptedException("malformed varint");
    }

    private String readStringBody(byte tag) throws IOException {
        int n = readVarint();
        if (n == 0 && (tag == Wire.T_STRING_L1 || tag == Wire.T_STRING_U16)) {
            return ""; // the JDK reads every empty string as the literal "": one object, however many were written
        }
        if (tag == Wire.T_STRING_L1) {
            if (n > limit - pos) {
                need(n);
            }
            String s = new String(buf, pos, n, StandardCharsets.ISO_8859_1);
            pos += n;
            return s;
        }
        if (tag != Wire.T_STRING_U16) {
            throw new StreamCorruptedException(String.format("expected a string, found type code %02X", tag));
        }
        if (n > (limit - pos) / 2) {
            if (n > Integer.MAX_VALUE / 2) {
                throw new StreamCorruptedException("string of " + n + " chars");
            }
            need(2 * n);
        }
        // Code units one by one, never a charset: a UTF-16 decoder would replace unpaired surrogates with U+FFFD,
        // and a Java string may hold any sequence of chars (the JDK's modified UTF-8 keeps every one).
        char[] cs = new char[n];
        byte[] b = buf;
        int p = pos;
        if (swap) {
            for (int i = 0; i < n; i++) {
                cs[i] = (char) Bytes.SC.get(b, p + 2 * i);
            }
        } else {
            for (int i = 0; i < n; i++) {
                cs[i] = (char) Bytes.NC.get(b, p + 2 * i);
            }
        }
        pos = p + 2 * n;
        return new String(cs);
    }

    private Object readPrimitive(char code) throws IOException {
        switch (code) {
            case 'Z': return readBoolean();
            case 'B': return readByte();
            case 'C': return readChar();
            case 'S': return readShort();
            case 'I': return readInt();
            case 'J': return readLong();
            case 'F': return readFloat();
            default: return readDouble();
        }
    }

    @Override
    public int read() throws IOException {
        if (pos >= limit) {
            if (source != null && limit == end && depth == 0 && curObj == null) {
                try {
                    pullFrame();
                } catch (EOFException e) {
                    return -1;
                }
            } else {
                return -1;
            }
        }
        return buf[pos++] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pos >= limit) {
            int c = read();
            if (c < 0) {
                return -1;
            }
            pos--;
        }
        int n = Math.min(len, limit - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    @Override
    public int available() {
        return Math.max(0, limit - pos);
    }

    @Override
    public boolean readBoolean() throws IOException {
        return buf[take(1)] != 0;
    }

    @Override
    public byte readByte() throws IOException {
        return buf[take(1)];
    }

    @Override
    public int readUnsignedByte() throws IOException {
        return buf[take(1)] & 0xFF;
    }

    @Override
    public char readChar() throws IOException {
        int p = take(2);
        return swap ? (char) Bytes.SC.get(buf, p) : (char) Bytes.NC.get(buf, p);
    }

    @Override
    public short readShort() throws IOException {
        int p = take(2);
        return swap ? (short) Bytes.SS.get(buf, p) : (short) Bytes.NS.get(buf, p);
    }

    @Override
    public int readUnsignedShort() throws IOException {
        return readShort() & 0xFFFF;
    }

    @Override
    public int readInt() throws IOException {
        int p = take(4);
        return swap ? (int) Bytes.SI.get(buf, p) : (int) Bytes.NI.get(buf, p);
    }

    @Override
    public long readLong() throws IOException {
        int p = take(8);
        return swap ? (long) Bytes.SJ.get(buf, p) : (long) Bytes.NJ.get(buf, p);
    }

    @Override
    public float readFloat() throws IOException {
        int p = take(4);
        return swap ? (float) Bytes.SF.get(buf, p) : (float) Bytes.NF.get(buf, p);
    }

    @Override
    public double readDouble() throws IOException {
        int p = take(8);
        return swap ? (double) Bytes.SD.get(buf, p) : (double) Bytes.ND.get(buf, p);
    }

    @Override
    public void readFully(byte[] b) throws IOException {
        readFully(b, 0, b.length);
    }

    @Override
    public void readFully(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        int p = take(len);
        System.arraycopy(buf, p, b, off, len);
    }

    @Override
    public int skipBytes(int len) {
        int n = Math.max(0, Math.min(len, limit - pos));
        pos += n;
        return n;
    }

    @Override
    @Deprecated
    public String readLine() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = read()) >= 0 && c != '\n') {
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return c < 0 && sb.length() == 0 ? null : sb.toString();
    }

    @Override
    public String readUTF() throws IOException {
        return readStringBody((byte) u8());
    }

    @Override
    public void close() throws IOException {
        if (source != null) {
            source.close();
        }
    }

    // ---------------------------------------------------------------- stream mode

    /** Reads the next frame [int length BE][message] from the source, keeping unread bytes before it. */
    /**
     * Stream mode, as {@code ObjectInputStream.readFatalException}: the frame (in {@code buf}) holds the IOException
     * that aborted a top-level write; handles are cleared before and after it is read, and it is thrown inside a
     * WriteAbortedException. Data still unread from earlier frames stays readable.
     */
    private void readAborted() throws IOException {
        readMessageHeader(); // clears the handles (F_HANDLES_RESET)
        Object ex;
        int d = depth;
        try {
            ex = readObject0(false);
        } catch (ClassNotFoundException e) {
            ex = null;
        } finally {
            depth = d;
        }
        clearHandles();
        if (!(ex instanceof IOException)) {
            throw new StreamCorruptedException("aborted write's exception is not an IOException: "
                    + (ex == null ? null : ex.getClass().getName()));
        }
        throw new java.io.WriteAbortedException("writing aborted", (IOException) ex);
    }

    /**
     * At the end of data (pos at limit): where that is the end of a frame cut by an aborted write
     * ({@link Wire#F_CUT}), reads the aborted write's frame, which comes next, and throws its WriteAbortedException.
     */
    private void abortedAtCut() throws IOException {
        if (!cut || limit != end || source == null) {
            return;
        }
        cut = false;
        int unread = end - pos;
        int oldPos = pos;
        byte[] keep = buf;
        byte[] frame = readFrame();
        if ((frame[0] & Wire.F_ABORTED) == 0) {
            throw new StreamCorruptedException("a value cut by an aborted write is not followed by its exception");
        }
        bytesBase += pos - callStart;
        buf = frame;
        pos = 0;
        limit = end = frame.length;
        try {
            readAborted();
        } finally {
            buf = keep;
            pos = oldPos;
            limit = end = oldPos + unread;
            callStart = pos;
        }
    }

    private void pullFrame() throws IOException {
        byte[] frame = readFrame();
        int len = frame.length;
        int unread = end - pos;
        int oldPos = pos;
        byte[] keep = buf;
        bytesBase += pos - callStart;
        // parse the frame's header and prelude in place
        buf = frame;
        pos = 0;
        limit = end = len;
        if (len > 0 && (frame[0] & Wire.F_ABORTED) != 0) {
            try {
                readAborted();
            } finally {
                buf = keep;
                pos = oldPos;
                limit = end = oldPos + unread;
            }
        }
        readMessageHeader();
        int body = len - pos;
        int need = unread + body;
        byte[] dst = keep.length >= need ? keep : new byte[Math.max(need, keep.length * 2)];
        System.arraycopy(keep, oldPos, dst, 0, unread);
        System.arraycopy(frame, pos, dst, unread, body);
        own = dst;
        buf = dst;
        pos = 0;
        limit = end = need;
        callStart = 0;
    }

    /** The next frame's message, [int length BE][message], from the source. */
    private byte[] readFrame() throws IOException {
        byte[] lenBytes = source.readNBytes(4);
        if (lenBytes.length == 0) {
            throw new EOFException("end of Remora stream");
        }
        if (lenBytes.length < 4) {
            throw new EOFException("truncated Remora frame header");
        }
        int len = (int) Bytes.BE_I.get(lenBytes, 0);
        if (len < 2) {
            throw new StreamCorruptedException("bad Remora frame length " + len);
        }
        byte[] frame = source.readNBytes(len); // grows as data arrives: a false length cannot exhaust memory
        if (frame.length < len) {
            throw new EOFException("truncated Remora frame: " + frame.length + " of " + len + " bytes");
        }
        return frame;
    }
}

package dev.remora.rmi.wire;

/**
 * Remora's wire format. Every message is one frame; a frame is self-delimiting so that a message-oriented transport
 * (libfabric) can carry it as one message and a stream transport (TCP) can cut the stream into frames.
 *
 * <pre>
 * offset size  field
 *  0      4    length    whole frame in bytes, this field included
 *  4      1    kind      CALL, ONEWAY, REPLY, EXCEPTION, PING, PONG, ACK, ONEWAY_ACK
 *  5      1    flags     REPLY: NEEDS_ACK (the result carried remote references: ack once they are registered);
 *                        CALL, ONEWAY, REPLY, EXCEPTION: FAST (the payload is in Remora's serializer format);
 *                        REPLY, EXCEPTION: ABORTED (the server could not serialize the result or exception: the
 *                        payload is the IOException that stopped it, which JRMP's stream would carry as
 *                        TC_EXCEPTION and its client read as a WriteAbortedException);
 *                        EXCEPTION: BROKEN (no payload: writing the result failed with a RuntimeException or Error,
 *                        where JRMP's server drops the connection after the normal return's header);
 *                        REPLY, EXCEPTION: DECLARES (the payload starts with the called object's asynchronous
 *                        methods, see below);
 *                        CALL, ONEWAY: CONTEXT (a tracing agent's context precedes the arguments, see below)
 *  6      2    lane      CALL: the caller's lane (unsigned; 0: none), what a JRMP connection is to its client thread:
 *                        the server serves a lane's calls on one thread while it is in use; LANE_ANY (0xffff): a
 *                        future call, run by any pool thread at once, in no order with other calls; other kinds: 0
 *  8      4    call id   chosen by the caller, echoed by REPLY/EXCEPTION/PONG; lets many calls share a connection;
 *                        ONEWAY_ACK: the number of one-way calls the server has run since its last ONEWAY_ACK
 * CALL and ONEWAY go on with:
 * 12     22    ObjID     objNum (8), UID unique (4), time (8), count (2), as ObjID.write
 * 34      8    method    RMI's method hash (sun.rmi.server.Util.computeMethodHash)
 * 42      ...  payload   arguments
 * CALL and ONEWAY with CONTEXT: at 42 the caller's trace context (remora.tracing), then the payload:
 * 42      2    length    of what follows (unsigned), at most 8192
 * 44      ...  pairs     key, value, key, value, ...: each a length (2 bytes) and as many bytes of UTF-8
 * REPLY: 12 ... the result; EXCEPTION: 12 ... the exception; either with ABORTED: 12 ... the IOException.
 * REPLY and EXCEPTION with DECLARES: first the declarations section, then the payload as above:
 * 12      2    n         one-way methods of the called object (remora.async on the server)
 * 14      2    m         future methods (remora.future)
 * 16      8n   hashes    the one-way methods' RMI hashes, then 8m: the future methods'
 * </pre>
 *
 * <p>DECLARES is set on the reply to the first call to an object (ObjID) on a connection when that object has
 * asynchronous methods; the client then sends those methods' calls as ONEWAY frames, or as CALLs whose reply it waits
 * for only when the result is used. The server answers ONEWAY with no reply; it sends ONEWAY_ACK (no payload) as it
 * runs them (every few calls, before a reply, and once drained after a PING), which the client counts against
 * {@code remora.async.maxPending}; a client waiting at that bound sends a PING. One-way frames may follow one another
 * in one write of a stream link or one fabric message (remora.async.batch): the receiver cuts them apart. Future calls
 * (LANE_ANY) issued back to back may likewise leave in one write, and the server's replies to them too
 * (remora.future.batch).
 *
 * Payload: if every value is primitive (or void), the values in order, big-endian, without a stream; else, without
 * FAST, a JDK serialization stream with RMI's class annotations and remote-object replacement holding all values in
 * order; with FAST, one message of Remora's serializer (dev.remora.serializer) whose type ids belong to the
 * connection and direction, so such frames are written and read in order. Each side picks per frame: a receiver reads
 * whatever the flag says, so peers configured with different serializers still work together.
 *
 * <p>Connection opening ({@link #HELLO_LENGTH} bytes each way): the client sends {@code MAGIC, VERSION (short),
 * technologies (byte bitmask), 0}; a Remora server answers {@code MAGIC, VERSION, chosen technology, 0}. A JRMP
 * server reads the first six bytes, sees the wrong magic and closes: the client then knows the endpoint is vanilla.
 * Peers of different {@link #VERSION}s (different Remora releases) stay on JRMP: a server answers a client of another
 * version with no technology, and a client treats a server of another version as vanilla; each says so once.
 */
public final class Frame {
    /** "RMRA"; JRMP's is "JRMI" (0x4a524d49). */
    public static final int MAGIC = 0x524d5241;
    /**
     * 8: CALL and ONEWAY may carry a trace context (FLAG_CONTEXT).
     * 7: a frame may follow a map of its large arrays ({@code transport.FrameMap}, which starts with 0 where a frame
     * has its length); over fabric a frame above 256 KB goes so, as several messages.
     * 6: lane LANE_ANY (future calls run concurrently); a fabric message may carry several frames.
     * 5: ONEWAY calls and ONEWAY_ACK; replies may carry DECLARES; a serialized lambda's capturing class and strings
     * are values (with handles), in the JDK's field order.
     * 4: calls carry their lane; EXCEPTION may be BROKEN. 3: replies may be ABORTED (a result that could not be serialized); type descriptors name classes in modified
     * UTF-8. 2: the fabric handshake carries shared rings (FabricTechnology).
     */
    public static final short VERSION = 8;
    public static final int HELLO_LENGTH = 8;

    public static final byte CALL = 1;
    public static final byte ONEWAY = 2;
    public static final byte REPLY = 3;
    public static final byte EXCEPTION = 4;
    public static final byte PING = 5;
    public static final byte PONG = 6;
    public static final byte ACK = 7;
    public static final byte ONEWAY_ACK = 8;
    /** The highest kind: a link takes a frame of another kind for a malformed one. */
    public static final byte LAST_KIND = ONEWAY_ACK;

    public static final byte FLAG_NEEDS_ACK = 1;
    public static final byte FLAG_FAST = 2;
    public static final byte FLAG_ABORTED = 4;
    public static final byte FLAG_BROKEN = 8;
    public static final byte FLAG_DECLARES = 16;
    public static final byte FLAG_CONTEXT = 32;

    /** The lane of a future call: any server thread, no order with the caller's other calls. */
    public static final int LANE_ANY = 0xffff;

    public static final int HEADER = 12;
    public static final int CALL_HEADER = HEADER + 22 + 8;
    public static final int OFF_KIND = 4;
    public static final int OFF_FLAGS = 5;
    public static final int OFF_LANE = 6;
    public static final int OFF_CALL_ID = 8;
    public static final int OFF_OBJID = 12;
    public static final int OFF_HASH = 34;

    /** Technology bits of the hello. */
    public static final int TECH_SOCKET = 1;
    public static final int TECH_FABRIC = 2;
    /** A Unix domain socket between two JVMs of one host; preferred to TCP, not to fabric (the router's order). */
    public static final int TECH_UNIX = 4;

    private Frame() {
    }

    /**
     * A hello ({@link #HELLO_LENGTH} bytes): {@code MAGIC, VERSION, technologies, 0}; a client's offers a bitmask of
     * technologies, a server's answer the one chosen (0: none, stay on JRMP).
     */
    public static FrameBuffer hello(int technologies) {
        FrameBuffer b = new FrameBuffer(HELLO_LENGTH);
        b.writeInt(MAGIC);
        b.writeShort(VERSION);
        b.writeByte(technologies);
        b.writeByte(0);
        return b;
    }

    /** Starts a frame in {@code b} (cleared): the header with a length to be set by {@link #finish}. */
    public static void begin(FrameBuffer b, byte kind, byte flags, int callId) {
        b.clear();
        b.skip(4);
        b.writeByte(kind);
        b.writeByte(flags);
        b.writeShort(0);
        b.writeInt(callId);
    }

    /** Sets the length field once the payload is written (its tail included, see {@link FrameBuffer#setTail}). */
    public static void finish(FrameBuffer b) {
        b.putInt(0, b.frameLength());
    }

    /** Positions reply frame {@code f} at its payload: after the header and, with DECLARES, the declarations. */
    public static void toPayload(FrameBuffer f) {
        byte[] a = f.array();
        int at = HEADER;
        if ((a[OFF_FLAGS] & FLAG_DECLARES) != 0) {
            at += 4 + 8 * ((FrameBuffer.getShort(a, HEADER) & 0xffff) + (FrameBuffer.getShort(a, HEADER + 2) & 0xffff));
        }
        f.position(at);
    }

    public static String kindName(int kind) {
        switch (kind) {
            case CALL: return "CALL";
            case ONEWAY: return "ONEWAY";
            case REPLY: return "REPLY";
            case EXCEPTION: return "EXCEPTION";
            case PING: return "PING";
            case PONG: return "PONG";
            case ACK: return "ACK";
            case ONEWAY_ACK: return "ONEWAY_ACK";
            default: return "unknown(" + kind + ")";
        }
    }
}

package dev.remora.serializer;

/**
 * Tags and flags of Remora's serialization format (see serializer/README.md for the layout).
 *
 * <p>A message (one call's arguments, or one frame of a fast-format file stream) is
 * {@code [flags][varint n][n descriptors][body]}: every class first described in this message comes in the prelude,
 * before any object, so a reader that fails half way through the body never loses track of the connection's types.
 * The body is a sequence of tagged values; primitives written by a class's own writeObject are untagged, in the
 * sender's byte order, inside a section {@code [int length][int handles assigned]} (big-endian) so that a reader
 * can skip what it does not understand and keep its handle numbering in step.
 */
final class Wire {
    static final byte T_NULL = 0;
    static final byte T_REF = 1;
    static final byte T_OBJECT = 2;
    static final byte T_STRING_L1 = 3;
    static final byte T_STRING_U16 = 4;
    static final byte T_CLASS = 5;
    static final byte T_ENUM = 6;
    static final byte T_ARRAY = 7;
    /**
     * An {@code ObjectStreamClass} written as an object (the JDK writes it as a class descriptor, which reads back
     * as an ObjectStreamClass even when its class is missing): {@code [varint n][n bytes]}, the JDK's own
     * serialization stream of that descriptor ({@link JdkDescriptors}).
     */
    static final byte T_DESC = 8;

    static final int F_LITTLE_ENDIAN = 1;
    static final int F_TYPES_RESET = 2;
    static final int F_HANDLES_RESET = 4;
    /**
     * Stream mode: a top-level write failed with this IOException, the body (as the JDK's {@code TC_EXCEPTION}); its
     * reader throws a WriteAbortedException, and both sides clear their handles before and after.
     */
    static final int F_ABORTED = 8;
    /**
     * Stream mode: the frame ends inside a value whose write failed (what it wrote is kept, as the JDK keeps it
     * before its {@code TC_EXCEPTION}; custom data sections open then were closed where the data stops); the frame
     * after it is the F_ABORTED one. A reader that reaches the end of such a frame inside the value reads that
     * frame and throws its WriteAbortedException there.
     */
    static final int F_CUT = 16;
    static final int F_KNOWN = 31;

    /** Bytes a section header takes: length of the data after it, then the number of handles assigned inside. */
    static final int SECTION_HEADER = 8;
    /*
     * Stream mode: a section's data is followed by a table of the runs of objects its class's own code wrote in it
     * (not those they hold; a run is objects written one after the other, without primitive data between them):
     * [varint n][varint gap, varint length]*n, each gap from the start of the data (first) or the end of the
     * previous run, then the table's length as a varint written backwards (its last byte holds the low 7 bits). A
     * reader whose class leaves some of that data unread reads those objects, as the JDK's skipCustomData does: they
     * take their handles, and a missing class marks them for later back references. A section whose data ends at a
     * failed write (F_CUT) has no table and bit 31 set in its length: it ends where the frame does.
     */

    private Wire() {
    }
}

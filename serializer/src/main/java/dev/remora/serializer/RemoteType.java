package dev.remora.serializer;

import java.io.StreamCorruptedException;

/**
 * A type descriptor received from the peer (untrusted: every count and length is checked against the bytes that are
 * there and against the options' limits), plus its resolution against local classes, done on first use and kept
 * for the connection.
 */
final class RemoteType {
    final byte kind;
    final String name;
    /** PLAIN: the sender's slots, superclass first. */
    final RemoteSlot[] slots;
    /** RECORD: fields. */
    final RemoteSlot record;
    final long svuid;
    final String[] interfaces;

    // resolution (one thread at a time per connection)
    Class<?> cl;
    ClassInfo local;
    Plan[] plan;
    boolean fastPlan;
    /** RECORD: local component index per remote field, or -1. */
    int[] recordMap;
    Class<?>[] proxyInterfaces;
    ClassLoader proxyLoader;
    /** PLAIN: the local class each of the sender's slots resolved to (null: none), as {@link #slots}. */
    Class<?>[] slotClasses;
    /** The descriptors the JDK's reader would read for this type, as its filter sees them; made on first use. */
    Descriptors descriptors;

    // the class loaders it resolves with (RemoraObjectInput#resolveWith), one connection, one thread at a time
    /** Resolved (or to be resolved) with {@link #boundDefault} and {@link #boundContext} only. */
    boolean loaderBound;
    ClassLoader boundDefault;
    ClassLoader boundContext;
    /** The same descriptor resolved with other loaders, most recent first ({@value #MAX_LOADER_SCOPES} with it). */
    private RemoteType sibling;
    /**
     * Resolved to a class of a loader that can be unloaded ({@link ClassResolver#unloadable}): its table keeps it
     * only softly from then on ({@link ReadTypeTable#get}).
     */
    boolean unloadable;
    /** A table's entry that keeps only the description: its resolutions are held softly beside it. */
    boolean softly;
    /** Noted by its table for the end of the current read ({@link ReadTypeTable#settle}). */
    boolean unsettled;

    /**
     * Resolutions of one descriptor a connection keeps: one per pair of loaders its calls resolved it with (an
     * application server's deployments, plugins); beyond that the oldest but the first is dropped (and made again if
     * needed), so that a connection does not keep the classes of every loader it ever served.
     */
    static final int MAX_LOADER_SCOPES = 8;

    /**
     * The chain of class descriptors the JDK writes for a type (the class, then each serializable superclass the
     * writer has) and its reader checks against the filter: the class each resolved to here (null where a name does
     * not resolve: the JDK checks null then), names that key "already read in this stream", and per descriptor the
     * local serializable superclasses the stream lacks, which the JDK's reader checks too (JDK 17.0.x and 25).
     */
    static final class Descriptors {
        final Class<?>[] classes;
        final String[] names;
        /** Per descriptor, or null: local superclasses checked after the descriptor's own superclass was read. */
        final Class<?>[][] localSupers;
        /** A proxy class's interfaces, checked before the proxy class itself; null for other types. */
        final Class<?>[] interfaces;
        /**
         * Per descriptor, the type strings of its object fields ({@code "Ljava/lang/Object;"}): the JDK writes each
         * once per stream and then as a back reference, which its reader checks with no class.
         */
        final String[][] typeStrings;

        Descriptors(Class<?>[] classes, String[] names, Class<?>[][] localSupers, Class<?>[] interfaces,
                String[][] typeStrings) {
            this.classes = classes;
            this.names = names;
            this.localSupers = localSupers;
            this.interfaces = interfaces;
            this.typeStrings = typeStrings;
        }
    }

    /** One serializable class of the sender's hierarchy. */
    static final class RemoteSlot {
        final String name;
        final long svuid;
        final boolean hasWriteObject;
        final char[] codes;
        final String[] names;
        final int primBytes;

        RemoteSlot(String name, long svuid, boolean hasWriteObject, char[] codes, String[] names) {
            this.name = name;
            this.svuid = svuid;
            this.hasWriteObject = hasWriteObject;
            this.codes = codes;
            this.names = names;
            int pb = 0;
            for (char c : codes) {
                pb += Bytes.size(c);
            }
            this.primBytes = pb;
        }
    }

    /** How one slot of an object's data is read: a matched pair, a local slot without data, or data to skip. */
    static final class Plan {
        final Slot local;
        final RemoteSlot remote;
        final boolean sameLayout;
        /** Local field index per remote field, or -1. */
        final int[] map;

        Plan(Slot local, RemoteSlot remote, boolean sameLayout, int[] map) {
            this.local = local;
            this.remote = remote;
            this.sameLayout = sameLayout;
            this.map = map;
        }
    }

    private RemoteType(byte kind, String name, RemoteSlot[] slots, RemoteSlot record, long svuid, String[] ifs) {
        this.kind = kind;
        this.name = name;
        this.slots = slots;
        this.record = record;
        this.svuid = svuid;
        this.interfaces = ifs;
    }

    /** This descriptor, not resolved yet. */
    RemoteType unresolved() {
        return new RemoteType(kind, name, slots, record, svuid, interfaces);
    }

    /**
     * This descriptor as resolved with {@code dflt} and {@code context}: itself or a copy made for them earlier, or a
     * new copy, unresolved, that its first use resolves with them.
     */
    RemoteType withLoaders(ClassLoader dflt, ClassLoader context) {
        for (RemoteType x = sibling; x != null; x = x.sibling) {
            if (x.boundDefault == dflt && x.boundContext == context) {
                return x;
            }
        }
        RemoteType c = unresolved();
        c.loaderBound = true;
        c.boundDefault = dflt;
        c.boundContext = context;
        c.sibling = sibling;
        sibling = c;
        RemoteType x = this;
        for (int n = 1; x != null && n < MAX_LOADER_SCOPES; n++) {
            x = x.sibling;
        }
        if (x != null) {
            x.sibling = null; // the oldest resolutions go
        }
        return c;
    }

    /** Parses one descriptor occupying exactly b[off, off+len). */
    static RemoteType parse(byte[] b, int off, int len, SerializerOptions o) throws StreamCorruptedException {
        Parser p = new Parser(b, off, off + len, o.maxClassNameLength());
        byte kind = (byte) p.u8();
        String name = p.name();
        RemoteType t;
        switch (kind) {
            case ClassInfo.PLAIN: {
                int n = p.count(256, "slots");
                RemoteSlot[] s = new RemoteSlot[n];
                for (int i = 0; i < n; i++) {
                    String sn = p.name();
                    long suid = p.i64();
                    int flags = p.u8();
                    if ((flags & ~1) != 0) {
                        throw new StreamCorruptedException("bad slot flags " + flags + " in descriptor of " + name);
                    }
                    s[i] = fields(p, sn, suid, flags == 1, name);
                }
                t = new RemoteType(kind, name, s, null, 0, null);
                break;
            }
            case ClassInfo.RECORD:
                t = new RemoteType(kind, name, null, fields(p, name, 0, false, name), 0, null);
                break;
            case ClassInfo.EXTERNALIZABLE:
                t = new RemoteType(kind, name, null, null, p.i64(), null);
                break;
            case ClassInfo.PROXY: {
                int n = p.count(65535, "interfaces");
                String[] ifs = new String[n];
                for (int i = 0; i < n; i++) {
                    ifs[i] = p.name();
                }
                t = new RemoteType(kind, name, null, null, 0, ifs);
                break;
            }
            case ClassInfo.ENUM:
            case ClassInfo.ARRAY:
            case ClassInfo.CLASS_ONLY:
            case ClassInfo.SPECIAL:
                t = new RemoteType(kind, name, null, null, 0, null);
                break;
            default:
                throw new StreamCorruptedException("unknown type kind " + kind + " in descriptor of " + name);
        }
        if (kind == ClassInfo.ARRAY && (name.length() < 2 || name.charAt(0) != '[')) {
            throw new StreamCorruptedException("array descriptor with a non-array name: " + name);
        }
        if (kind == ClassInfo.SPECIAL && ClassInfo.specialOf(name) == 0) {
            throw new StreamCorruptedException("unknown special type " + name);
        }
        if (p.p != p.end) {
            throw new StreamCorruptedException("descriptor of " + name + " has " + (p.end - p.p) + " extra bytes");
        }
        return t;
    }

    private static RemoteSlot fields(Parser p, String slotName, long suid, boolean wo, String name)
            throws StreamCorruptedException {
        int nf = p.count(65535, "fields");
        char[] codes = new char[nf];
        String[] names = new String[nf];
        boolean seenObject = false;
        for (int j = 0; j < nf; j++) {
            char c = (char) p.u8();
            switch (c) {
                case 'B': case 'C': case 'D': case 'F': case 'I': case 'J': case 'S': case 'Z':
                    if (seenObject) {
                        throw new StreamCorruptedException("primitive field after reference field in " + name);
                    }
                    break;
                case 'L': case '[':
                    seenObject = true;
                    break;
                default:
                    throw new StreamCorruptedException("illegal field type code " + (int) c + " in " + name);
            }
            codes[j] = c;
            names[j] = p.name();
        }
        return new RemoteSlot(slotName, suid, wo, codes, names);
    }

    /** Bounds-checked reader over a descriptor. */
    private static final class Parser {
        final byte[] b;
        int p;
        final int end;
        final int maxName;

        Parser(byte[] b, int p, int end, int maxName) {
            this.b = b;
            this.p = p;
            this.end = end;
            this.maxName = maxName;
        }

        int u8() throws StreamCorruptedException {
            if (p >= end) {
                throw new StreamCorruptedException("truncated type descriptor");
            }
            return b[p++] & 0xFF;
        }

        long i64() throws StreamCorruptedException {
            if (end - p < 8) {
                throw new StreamCorruptedException("truncated type descriptor");
            }
            long v = (long) Bytes.BE_J.get(b, p);
            p += 8;
            return v;
        }

        int varint() throws StreamCorruptedException {
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
            throw new StreamCorruptedException("malformed length in type descriptor");
        }

        /** A count of items each taking at least one byte: cannot exceed what is left. */
        int count(int max, String what) throws StreamCorruptedException {
            int n = varint();
            if (n > max || n > end - p) {
                throw new StreamCorruptedException("type descriptor claims " + n + " " + what + " (limit " + max
                        + ", " + (end - p) + " bytes left)");
            }
            return n;
        }

        String name() throws StreamCorruptedException {
            int n = varint();
            if (n == 0 || n > maxName || n > end - p) {
                throw new StreamCorruptedException("bad name length " + n + " in type descriptor (limit "
                        + maxName + ", " + (end - p) + " bytes left)");
            }
            String s = ModifiedUtf8.read(b, p, n);
            p += n;
            return s;
        }
    }
}

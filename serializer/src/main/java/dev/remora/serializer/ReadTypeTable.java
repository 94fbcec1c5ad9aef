package dev.remora.serializer;

import java.io.StreamCorruptedException;
import java.lang.ref.SoftReference;
import java.util.Arrays;

/**
 * The read side of a connection's type cache: the descriptors the peer has sent, by id, each resolved against local
 * classes on first use. Separate from {@link WriteTypeTable} (see there). One per connection, one call at a time.
 *
 * <p>A descriptor resolved to a class of a loader that can be unloaded ({@link ClassResolver#unloadable}: an
 * application server's deployment, a plugin) is then kept only softly, as the JDK keeps its class descriptors, beside
 * its description: a connection that outlives a redeployment does not keep the old one's classes and loader, and a
 * resolution the collector took is made again on next use.
 */
public final class ReadTypeTable {
    private RemoteType[] byId = new RemoteType[64];
    /** Per id whose entry is {@link RemoteType#softly} kept: its resolution; null until the first such id. */
    private SoftReference<RemoteType>[] resolved;
    private int size;
    /** Ids whose entries this read found unresolved. */
    private int[] unsettled = new int[8];
    private int nUnsettled;

    RemoteType get(int id) throws StreamCorruptedException {
        if (id <= 0 || id > size) {
            throw new StreamCorruptedException("unknown type id " + id + " (this connection knows " + size
                    + " types): the peer's type cache is out of step, the connection must be reset");
        }
        RemoteType t = byId[id];
        if (t.softly) {
            t = resolved[id].get();
            if (t == null) {
                t = byId[id].unresolved(); // collected: resolved again on first use
                keepSoftly(id, t);
            }
        } else if (t.local == null && !t.unsettled) { // resolved by this read, perhaps
            t.unsettled = true; // once per read, however many of its objects are of the type
            if (nUnsettled == unsettled.length) {
                if (nUnsettled >= 1024) {
                    settle(); // a stream that reads on and on between resets
                } else {
                    unsettled = Arrays.copyOf(unsettled, nUnsettled * 2);
                }
            }
            unsettled[nUnsettled++] = id;
        } else if (t.unloadable) {
            demote(id, t); // resolved by a read that did not settle
        }
        return t;
    }

    /**
     * The read is over: each type it resolved to a class of a loader that can be unloaded is from now on kept only
     * softly, its description strongly.
     */
    void settle() {
        for (int i = 0; i < nUnsettled; i++) {
            int id = unsettled[i];
            RemoteType t = byId[id];
            if (t != null) {
                t.unsettled = false;
                if (t.unloadable) {
                    demote(id, t);
                }
            }
        }
        nUnsettled = 0;
    }

    private void demote(int id, RemoteType t) {
        RemoteType d = t.unresolved();
        d.softly = true;
        byId[id] = d;
        keepSoftly(id, t);
    }

    @SuppressWarnings("unchecked")
    private void keepSoftly(int id, RemoteType t) {
        if (resolved == null || resolved.length < byId.length) {
            resolved = resolved == null ? new SoftReference[byId.length] : Arrays.copyOf(resolved, byId.length);
        }
        resolved[id] = new SoftReference<>(t);
    }

    void add(RemoteType t, int maxTypes) throws StreamCorruptedException {
        if (size >= maxTypes) {
            throw new StreamCorruptedException("peer described more than " + maxTypes
                    + " types on one connection (SerializerOptions.maxTypes)");
        }
        if (size + 1 >= byId.length) {
            byId = Arrays.copyOf(byId, byId.length * 2);
        }
        byId[++size] = t;
    }

    /** Clears every soft reference to a resolution, as the collector may when memory runs short (tests). */
    void dropResolutions() {
        if (resolved != null) {
            for (SoftReference<RemoteType> r : resolved) {
                if (r != null) {
                    r.clear();
                }
            }
        }
    }

    /** Types received on this connection. */
    public int size() {
        return size;
    }

    /** Forgets every type (call mode, or a connection reset). */
    public void clear() {
        Arrays.fill(byId, 0, size + 1, null);
        resolved = null;
        nUnsettled = 0;
        size = 0;
    }
}

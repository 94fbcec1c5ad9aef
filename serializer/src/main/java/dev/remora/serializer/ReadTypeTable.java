package dev.remora.serializer;

import java.io.StreamCorruptedException;
import java.util.Arrays;

/**
 * The read side of a connection's type cache: the descriptors the peer has sent, by id, each resolved against local
 * classes on first use. Separate from {@link WriteTypeTable} (see there). One per connection, one call at a time.
 */
public final class ReadTypeTable {
    private RemoteType[] byId = new RemoteType[64];
    private int size;

    RemoteType get(int id) throws StreamCorruptedException {
        if (id <= 0 || id > size) {
            throw new StreamCorruptedException("unknown type id " + id + " (this connection knows " + size
                    + " types): the peer's type cache is out of step, the connection must be reset");
        }
        return byId[id];
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

    /** Types received on this connection. */
    public int size() {
        return size;
    }

    /** Forgets every type (call mode, or a connection reset). */
    public void clear() {
        Arrays.fill(byId, 0, size + 1, null);
        size = 0;
    }
}

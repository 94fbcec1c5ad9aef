package dev.remora.serializer;

/**
 * The write side of a connection's type cache: which local classes this connection has already described to the
 * peer, and their ids (1, 2, 3... in the order described). Separate from {@link ReadTypeTable} on purpose: what a
 * connection reads never changes what it writes (Apache Fory issue 3929 corrupted data by sharing the two).
 * Created by the connection owner, one per connection, used by one call at a time.
 */
public final class WriteTypeTable {
    private final IdentityIntMap ids = new IdentityIntMap(64);
    private int committed;
    /** Changes whenever ids are forgotten, so callers' caches of an id can tell they are stale. */
    private int generation;

    int generation() {
        return generation;
    }

    /** Id of cl, or -1 when this connection has not described it yet. */
    int idOf(Class<?> cl) {
        return ids.get(cl);
    }

    /** Assigns the next id. */
    int add(Class<?> cl) {
        int id = ids.size() + 1;
        ids.put(cl, id);
        return id;
    }

    /** Types described on this connection so far, committed or not. */
    public int size() {
        return ids.size();
    }

    /** The current call's descriptors reached the peer. */
    void commit() {
        committed = ids.size();
    }

    /** The current call was abandoned: forget the types it described, the peer never saw them. */
    void rollback() {
        if (ids.size() != committed) {
            ids.removeValuesFrom(committed + 1);
            generation++;
        }
    }

    /** Forgets every type (call mode, or a connection reset). */
    public void clear() {
        ids.clear();
        committed = 0;
        generation++;
    }
}

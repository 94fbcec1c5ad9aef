package dev.remora.serializer;

import java.util.Iterator;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The write side of a connection's type cache: which local classes this connection has already described to the
 * peer, and their ids (1, 2, 3... in the order described). Separate from {@link ReadTypeTable} on purpose: what a
 * connection reads never changes what it writes (Apache Fory issue 3929 corrupted data by sharing the two).
 * Created by the connection owner, one per connection, used by one call at a time.
 *
 * <p>Classes of a loader that can be unloaded ({@link ClassResolver#unloadable}: an application server's
 * deployment, a plugin) are kept weakly: a connection that outlives a redeployment must not keep the old one's
 * classes, and their loader, alive. Such a class's id is never given again; the peer keeps only its description.
 */
public final class WriteTypeTable {
    private final IdentityIntMap ids = new IdentityIntMap(64);
    /** Ids of classes of unloadable loaders; null until the first. */
    private WeakHashMap<Class<?>, Integer> weakIds;
    /** Ids given so far (the last id), committed or not. */
    private int last;
    private int committed;
    /** Changes whenever ids are forgotten, so callers' caches of an id can tell they are stale. */
    private int generation;

    int generation() {
        return generation;
    }

    /** Id of cl, or -1 when this connection has not described it yet. */
    int idOf(Class<?> cl) {
        int id = ids.get(cl);
        if (id < 0 && weakIds != null) {
            Integer w = weakIds.get(cl);
            if (w != null) {
                id = w;
            }
        }
        return id;
    }

    /** Assigns the next id. */
    int add(Class<?> cl) {
        int id = ++last;
        if (ClassResolver.unloadable(cl.getClassLoader())) {
            if (weakIds == null) {
                weakIds = new WeakHashMap<>();
            }
            weakIds.put(cl, id);
        } else {
            ids.put(cl, id);
        }
        return id;
    }

    /** Types described on this connection so far, committed or not. */
    public int size() {
        return last;
    }

    /** Classes this table still holds, of unloadable loaders (weakly, those a collection has not taken) or not. */
    int held() {
        return ids.size() + (weakIds == null ? 0 : weakIds.size());
    }

    /** The current call's descriptors reached the peer. */
    void commit() {
        committed = last;
    }

    /** The current call was abandoned: forget the types it described, the peer never saw them. */
    void rollback() {
        if (last != committed) {
            ids.removeValuesFrom(committed + 1);
            if (weakIds != null) {
                for (Iterator<Map.Entry<Class<?>, Integer>> i = weakIds.entrySet().iterator(); i.hasNext(); ) {
                    if (i.next().getValue() > committed) {
                        i.remove();
                    }
                }
            }
            last = committed;
            generation++;
        }
    }

    /** Forgets every type (call mode, or a connection reset). */
    public void clear() {
        ids.clear();
        weakIds = null;
        last = 0;
        committed = 0;
        generation++;
    }
}

package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.FrameBuffer;
import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.rmi.server.ObjID;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ObjID to JRMP's own {@code Target} for the objects this JVM exported (learned from the export hook). Going through
 * the Target, not the implementation, keeps JRMP's rules: a call on an unexported object gets JRMP's
 * NoSuchObjectException from {@code Target.incrementCallCount}, and an unexport without force waits for Remora's calls
 * in progress too.
 *
 * <p>The Targets are held weakly: JRMP's ObjectTable holds a Target strongly until the object is unexported or
 * collected, and the Target holds the implementation strongly while clients hold references (its WeakRef is pinned),
 * and the exporting thread's context class loader. A strong Target here would keep all that reachable after JRMP let
 * go (an object unexported while a client still referenced it was never collected). Entries whose Target JRMP let go
 * are dropped as new objects are exported.
 *
 * <p>Each entry also keeps the export's own endpoint (the TCPEndpoint JRMP listens on for it; its port is filled in
 * place once an anonymous port is bound), so the client side can tell a stub for an object of this JVM
 * ({@link #local}) from one for a same-ObjID object elsewhere.
 */
final class ExportTable {
    /** The 22 bytes of an ObjID as fields; a mutable instance per reader serves as the lookup key. */
    static final class Key {
        long objNum;
        int unique;
        long time;
        short count;

        Key read(byte[] b, int at) {
            objNum = FrameBuffer.getLong(b, at);
            unique = FrameBuffer.getInt(b, at + 8);
            time = FrameBuffer.getLong(b, at + 12);
            count = FrameBuffer.getShort(b, at + 20);
            return this;
        }

        Key copy() {
            Key k = new Key();
            k.objNum = objNum;
            k.unique = unique;
            k.time = time;
            k.count = count;
            return k;
        }

        @Override
        public int hashCode() {
            return Long.hashCode(objNum) * 31 + unique;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Key)) {
                return false;
            }
            Key k = (Key) o;
            return k.objNum == objNum && k.unique == unique && k.time == time && k.count == count;
        }
    }

    /** One exported object: JRMP's Target (weakly) and the endpoint it was exported on. */
    static final class Export extends WeakReference<Object> {
        final Key key;
        final ObjID id;
        final Object endpoint;
        /** For co-located calls: the client host they report, and the ConnectionHandler that reports it. */
        volatile String clientHost;
        volatile Object handler;
        /** Its asynchronous methods (remora.async, remora.future), or null. */
        final AsyncMethods async;

        Export(Key key, ObjID id, Object target, Object endpoint, AsyncMethods async, ReferenceQueue<Object> queue) {
            super(target, queue);
            this.key = key;
            this.id = id;
            this.endpoint = endpoint;
            this.async = async;
        }

        /** JRMP's Target, or null once JRMP let go of it. */
        Object target() {
            return get();
        }
    }

    private final Map<Key, Export> targets = new ConcurrentHashMap<>();
    private final Map<ObjID, Export> byId = new ConcurrentHashMap<>();
    private final ReferenceQueue<Object> gone = new ReferenceQueue<>();
    private final AtomicInteger sinceSweep = new AtomicInteger();

    /** Remembers an export; false when the object is not one Remora serves. */
    boolean add(ObjID id, Object target, Object endpoint) {
        return add(id, target, endpoint, null);
    }

    /** Remembers an export with its asynchronous methods (or null); false when the object is not one Remora serves. */
    boolean add(ObjID id, Object target, Object endpoint, AsyncMethods async) {
        FrameBuffer b = new FrameBuffer(32);
        try {
            id.write(b);
        } catch (java.io.IOException e) {
            return false; // FrameBuffer does not throw on primitives
        }
        expunge();
        Key key = new Key().read(b.array(), 0);
        Export e = new Export(key, id, target, endpoint, async, gone);
        targets.put(key, e);
        byId.put(id, e);
        if (sinceSweep.incrementAndGet() >= 64) {
            sinceSweep.set(0);
            sweep();
        }
        return true;
    }

    /** The entry for {@code key} (its Target may be gone), or null. */
    Export entry(Key key) {
        return targets.get(key);
    }

    /** The Target for {@code key}, or null. */
    Object get(Key key) {
        Export e = targets.get(key);
        return e == null ? null : e.get();
    }

    /**
     * The export a stub with {@code id} and client endpoint {@code port} leads to when it is an object of this JVM
     * that JRMP still serves there: the ObjID is in this table and the port is the one this JVM listens on for it.
     * Null otherwise (unknown, unexported, another port).
     */
    Export local(ObjID id, int port) throws Throwable {
        Export e = byId.get(id);
        if (e == null || RmiInternals.port(e.endpoint) != port) {
            return null;
        }
        Object target = e.get();
        if (target == null || RmiInternals.targetRemoved(target)) {
            return null;
        }
        return e;
    }

    /** Drops the entries whose Target was collected. */
    private void expunge() {
        for (Reference<?> r; (r = gone.poll()) != null;) {
            forget((Export) r);
        }
    }

    private void forget(Export e) {
        targets.remove(e.key, e);
        byId.remove(e.id, e);
    }

    int size() {
        return targets.size();
    }

    /** Drops Targets that JRMP removed (unexported, or collected by the DGC) but something still holds. */
    void sweep() {
        try {
            for (Iterator<Export> it = byId.values().iterator(); it.hasNext();) {
                Export e = it.next();
                Object target = e.get();
                if (target == null || RmiInternals.targetRemoved(target)) {
                    forget(e);
                }
            }
        } catch (Throwable t) {
            // the next sweep tries again
        }
    }
}

package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.FrameBuffer;
import java.rmi.server.ObjID;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * ObjID to JRMP's own {@code Target} for the objects this JVM exported (learned from the export hook). Holding the
 * Target, not the implementation, keeps JRMP's rules: the implementation stays weakly reachable (DGC decides), a
 * call on an unexported object gets JRMP's NoSuchObjectException from {@code Target.incrementCallCount}, and an
 * unexport without force waits for Remora's calls in progress too. Entries of unexported objects are swept as new
 * objects are exported.
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

    /** One exported object: JRMP's Target and the endpoint it was exported on. */
    static final class Export {
        final Object target;
        final Object endpoint;
        /** For co-located calls: the client host they report, and the ConnectionHandler that reports it. */
        volatile String clientHost;
        volatile Object handler;

        Export(Object target, Object endpoint) {
            this.target = target;
            this.endpoint = endpoint;
        }
    }

    private final Map<Key, Object> targets = new ConcurrentHashMap<>();
    private final Map<ObjID, Export> byId = new ConcurrentHashMap<>();
    private final AtomicInteger sinceSweep = new AtomicInteger();

    /** Remembers an export; false when the object is not one Remora serves. */
    boolean add(ObjID id, Object target, Object endpoint) {
        FrameBuffer b = new FrameBuffer(32);
        try {
            id.write(b);
        } catch (java.io.IOException e) {
            return false; // FrameBuffer does not throw on primitives
        }
        targets.put(new Key().read(b.array(), 0), target);
        byId.put(id, new Export(target, endpoint));
        if (sinceSweep.incrementAndGet() >= 64) {
            sinceSweep.set(0);
            sweep();
        }
        return true;
    }

    /** The Target for {@code key}, or null. */
    Object get(Key key) {
        return targets.get(key);
    }

    /**
     * The export a stub with {@code id} and client endpoint {@code port} leads to when it is an object of this JVM
     * that JRMP still serves there: the ObjID is in this table and the port is the one this JVM listens on for it.
     * Null otherwise (unknown, unexported, another port).
     */
    Export local(ObjID id, int port) throws Throwable {
        Export e = byId.get(id);
        if (e == null || RmiInternals.port(e.endpoint) != port || RmiInternals.targetRemoved(e.target)) {
            return null;
        }
        return e;
    }

    int size() {
        return targets.size();
    }

    /** Drops Targets that JRMP removed (unexported, or collected by the DGC). */
    void sweep() {
        try {
            for (Iterator<Object> it = targets.values().iterator(); it.hasNext();) {
                if (RmiInternals.targetRemoved(it.next())) {
                    it.remove();
                }
            }
            for (Iterator<Export> it = byId.values().iterator(); it.hasNext();) {
                if (RmiInternals.targetRemoved(it.next().target)) {
                    it.remove();
                }
            }
        } catch (Throwable t) {
            // the next sweep tries again
        }
    }
}

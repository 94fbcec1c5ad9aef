package dev.remora.rmi.jdk;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamConstants;
import java.io.OutputStream;
import java.rmi.Remote;
import java.rmi.server.RMIClassLoader;
import java.rmi.server.RemoteStub;
import java.util.ArrayList;
import java.util.List;

/**
 * What {@code sun.rmi.server.MarshalOutputStream} does (class annotations for codebase loading, exported remote
 * objects replaced by their stubs), plus one thing JRMP's ConnectionOutputStream does for results: it remembers the
 * implementations it replaced so the server can keep them reachable until the client has registered its references
 * with the DGC (the "DGC ack").
 */
public final class RemoraOutputStream extends ObjectOutputStream {
    private List<Remote> replaced;

    public RemoraOutputStream(OutputStream out) throws IOException {
        super(out);
        useProtocolVersion(ObjectStreamConstants.PROTOCOL_VERSION_2);
        enableReplaceObject(true);
    }

    @Override
    @SuppressWarnings("deprecation")
    protected Object replaceObject(Object obj) throws IOException {
        if (obj instanceof Remote && !(obj instanceof RemoteStub)) {
            try {
                Object target = RmiInternals.target((Remote) obj);
                if (target != null) {
                    if (replaced == null) {
                        replaced = new ArrayList<>(2);
                    }
                    replaced.add((Remote) obj);
                    return RmiInternals.targetStub(target);
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            }
        }
        return obj;
    }

    @Override
    protected void annotateClass(Class<?> cl) throws IOException {
        writeObject(RMIClassLoader.getClassAnnotation(cl));
    }

    @Override
    protected void annotateProxyClass(Class<?> cl) throws IOException {
        annotateClass(cl);
    }

    /** Exported objects this stream replaced by stubs, or null. */
    public List<Remote> replaced() {
        return replaced;
    }
}

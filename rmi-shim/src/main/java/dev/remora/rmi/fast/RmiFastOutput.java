package dev.remora.rmi.fast;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.serializer.RemoraObjectOutput;
import dev.remora.serializer.SerializerOptions;
import dev.remora.serializer.WriteTypeTable;
import java.io.IOException;
import java.rmi.Remote;
import java.rmi.server.RemoteStub;
import java.util.ArrayList;
import java.util.List;

/**
 * Remora's serializer with what {@code sun.rmi.server.MarshalOutputStream} adds: an exported remote object is
 * written as its stub. Like {@link dev.remora.rmi.jdk.RemoraOutputStream} it remembers the implementations it
 * replaced, so the server can keep them reachable until the client has registered its references with the DGC.
 * Class annotations (codebase URLs) are not written: Remora's type descriptors carry none.
 *
 * <p>One per connection direction, reused for every call ({@link #beginCall()} forgets the previous call's list).
 */
public final class RmiFastOutput extends RemoraObjectOutput {
    private List<Remote> replaced;

    public RmiFastOutput(WriteTypeTable types, SerializerOptions options) throws IOException {
        super(types, options);
        enableReplaceObject(true);
    }

    @Override
    public void beginCall() {
        replaced = null;
        super.beginCall();
    }

    /**
     * Also forgets the list of replaced implementations: it is handed to the caller that pins them, and kept here it
     * would pin them (an exported object given as an argument) until this connection's next call, or forever, as JRMP
     * never does. A call whose arguments failed to serialize leaves its list here too.
     */
    @Override
    public void release() {
        replaced = null;
        super.release();
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

    /** Exported objects the current call replaced by stubs, or null (a new list per call: it may be pinned). */
    public List<Remote> replaced() {
        return replaced;
    }
}

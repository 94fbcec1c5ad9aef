package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.lang.ref.Reference;
import java.net.InetAddress;
import java.rmi.MarshalException;
import java.rmi.Remote;
import java.rmi.UnmarshalException;
import java.util.List;

/**
 * The co-located short-cut ("KaRMI" section 4.2): a call on a stub for an object exported in this JVM runs the
 * implementation on the caller's thread, with no connection, and with what a call over loopback would observe, because
 * it is the network path without the link: the caller marshals the arguments as {@link RemoraRouter} does, the
 * {@link Dispatcher} serves the call (target, call count, context class loader, method, arguments through the export's
 * filter, invocation, JRMP's exceptions) and writes its reply frame into a buffer, and {@link Replies} reads that reply
 * as a client reads one from the network. So:
 * <ul>
 *   <li>copy semantics: arguments, the result and exceptions go through the connection marshalling (the fast
 *       serializer on a per-thread channel, or JDK serialization with RMI's stub replacement, class annotations and
 *       DGC registration), so the callee never sees the caller's objects; identity within one message's graph is
 *       kept. Arguments of a method whose parameters are all primitive are not copied (boxes are immutable);</li>
 *   <li>an exception's trace is the callee's (the caller's frames below the dispatcher cut off, as a server thread
 *       has none of them), then the caller's under JRMP's {@code exceptionReceivedFromServer} frames;</li>
 *   <li>{@code RemoteServer.getClientHost()} answers the address of the stub's host (what JRMP reports for a
 *       connection to that host from this machine: the loopback address for 127.0.0.1, the host's own address for
 *       its name).</li>
 * </ul>
 * Differences from JRMP: the callee runs on the caller's thread (not on a connection thread), and there is no
 * response timeout. An unexported object is not short-cut: the call takes the network path, which answers as JRMP
 * does (NoSuchObjectException while the port still serves other objects, a refused connection once it does not).
 */
final class LocalCall {
    /** Per-thread marshalling and buffers; a nested call (from inside a copy or the callee) gets fresh ones. */
    private static final class State implements Dispatcher.ReplySink {
        final Marshalling marshalling;
        final FrameBuffer args = new FrameBuffer(512);
        final FrameBuffer reply = new FrameBuffer(512); // read back on this thread: no tail
        final Dispatcher.Call call = new Dispatcher.Call();
        List<Remote> pins;
        boolean answered;
        boolean busy;

        State(RouterOptions options) {
            marshalling = new Marshalling(new FastChannel(options.typeCache), options);
        }

        @Override
        public void reply(Dispatcher.Call c, FrameBuffer out, List<Remote> p) {
            pins = p;
            answered = true;
        }

        @Override
        public void unanswerable(Dispatcher.Call c) {
            answered = false;
        }
    }

    private final RouterOptions options;
    private final Dispatcher dispatcher;
    private final ThreadLocal<State> states;

    LocalCall(RouterOptions options, Dispatcher dispatcher) {
        this.options = options;
        this.dispatcher = dispatcher;
        this.states = new ThreadLocal<>() {
            @Override
            protected State initialValue() {
                return new State(options);
            }
        };
    }

    /**
     * The ConnectionHandler for calls through a stub whose endpoint host is {@code host}, or null when Remora cannot
     * make one (the call then takes the network path).
     */
    static Object handler(ExportTable.Export e, String host) {
        Object h = e.handler;
        if (h != null && host.equals(e.clientHost)) {
            return h;
        }
        try {
            String address = InetAddress.getByName(host).getHostAddress(); // JRMP reports the peer's address
            h = RmiInternals.localConnectionHandler(e.endpoint, address);
        } catch (Throwable t) {
            return null;
        }
        e.handler = h;
        e.clientHost = host;
        return h;
    }

    /** The call's outcome {@code {result, thrown}}; never throws. */
    Object[] invoke(ExportTable.Export e, Object handler, long hash, Marshal.MethodInfo mi, Object[] args,
            ClassLoader stubLoader) {
        State s = states.get();
        boolean own = !s.busy;
        if (!own) {
            s = new State(options);
        }
        s.busy = true;
        try {
            return invoke(s, e, handler, hash, mi, args, stubLoader);
        } finally {
            if (own) {
                s.busy = false;
                if (s.marshalling.channel.broken() != null) {
                    states.remove(); // its tables are out of step
                }
            }
        }
    }

    private Object[] invoke(State s, ExportTable.Export e, Object handler, long hash, Marshal.MethodInfo mi,
            Object[] args, ClassLoader stubLoader) {
        Marshalling m = s.marshalling;
        Marshaller writer = m.writer;
        FrameBuffer buf = s.args;

        // The caller marshals, on its own thread and class loader, as the network path does.
        buf.clear();
        byte flags = 0;
        if (!mi.rawArgs) {
            writer.lockWrite();
            try {
                writer.writeValues(buf, mi.params, args);
                flags = writer.flag();
            } catch (IOException x) {
                return new Object[] {null, new MarshalException("error marshalling arguments", x)};
            } catch (RuntimeException x) {
                return new Object[] {null, x}; // as UnicastRef.invoke: not wrapped
            } finally {
                writer.unlockWrite();
            }
        }

        // The callee, as a connection serves it.
        Dispatcher.Call c = s.call;
        s.pins = null;
        s.answered = false;
        Object oldHandler = RmiInternals.setConnectionHandler(handler);
        try {
            buf.position(0);
            dispatcher.prepare(c, e.target(), hash, buf, m.reader(flags),
                    mi.rawArgs ? (args == null ? Marshal.NO_ARGS : args) : null);
            // the caller's trace context, as a network call carries it (the server's span is the callee's)
            c.context = dispatcher.tracing == null ? null : dispatcher.tracing.capture();
            dispatcher.complete(c, s.reply, writer, s);
        } finally {
            RmiInternals.setConnectionHandler(oldHandler);
        }

        // Back to the caller, who reads the reply as a client reads one from the network.
        try {
            if (!s.answered) {
                return new Object[] {null, new UnmarshalException("Error unmarshaling return header")};
            }
            return Replies.outcome(s.reply, mi, m, true, stubLoader);
        } finally {
            Reference.reachabilityFence(s.pins); // the result's exported objects until the caller's stubs exist
            s.pins = null;
            buf.relax(); // this thread keeps no large value's buffers between calls
            s.reply.relax();
        }
    }
}

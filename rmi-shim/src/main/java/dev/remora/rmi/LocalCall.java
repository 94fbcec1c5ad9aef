package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.lang.ref.Reference;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.InetAddress;
import java.rmi.MarshalException;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.ServerError;
import java.rmi.ServerException;
import java.rmi.UnmarshalException;
import java.util.List;

/**
 * The co-located short-cut (seed 000 section 4.2): a call on a stub for an object exported in this JVM runs the
 * implementation on the caller's thread, with no connection, and with what a call over loopback would observe:
 * <ul>
 *   <li>copy semantics: arguments, the result and exceptions go through the marshalling the network path uses (the
 *       fast serializer on a per-thread channel, or JDK serialization with RMI's stub replacement, class annotations
 *       and DGC registration), so the callee never sees the caller's objects; identity within one message's graph is
 *       kept. Arguments of a method whose parameters are all primitive are not copied (boxes are immutable);</li>
 *   <li>JRMP's exceptions, as {@link ServerConnection} makes them: unknown method hash and unreadable arguments as
 *       UnmarshalException inside ServerException, the method's Error as ServerError, its RemoteException as
 *       ServerException, anything else as thrown; the callee's trace then the caller's;</li>
 *   <li>the implementation's context class loader during the call, the export's filter on the arguments, and
 *       JRMP's call count on the Target (an unexport without force waits for the call);</li>
 *   <li>{@code RemoteServer.getClientHost()} answers the address of the stub's host (what JRMP reports for a
 *       connection to that host from this machine: the loopback address for 127.0.0.1, the host's own address for
 *       its name).</li>
 * </ul>
 * Differences from JRMP: the callee runs on the caller's thread (not on a connection thread), and there is no
 * response timeout. An unexported object is not short-cut: the call takes the network path, which answers as JRMP
 * does (NoSuchObjectException while the port still serves other objects, a refused connection once it does not).
 */
final class LocalCall {
    /** Per-thread channel and buffer; a nested call (from inside a copy) gets fresh ones. */
    private static final class State {
        final FastChannel fast;
        final FrameBuffer buf = new FrameBuffer(512);
        boolean busy;

        State(RouterOptions options) {
            fast = new FastChannel(options.typeCache);
        }
    }

    private static final boolean SUPPRESS_STACK_TRACES = Boolean.getBoolean("sun.rmi.server.suppressStackTraces");

    private final RouterOptions options;
    private final ThreadLocal<State> states;

    LocalCall(RouterOptions options) {
        this.options = options;
        this.states = ThreadLocal.withInitial(() -> new State(options));
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
    Object[] invoke(ExportTable.Export e, Object handler, long hash, Marshal.MethodInfo mi, Object[] args) {
        State s = states.get();
        boolean own = !s.busy;
        if (!own) {
            s = new State(options);
        }
        s.busy = true;
        try {
            return invoke(s, e, handler, hash, mi, args);
        } finally {
            if (own) {
                s.busy = false;
                if (s.fast.broken() != null) {
                    states.remove(); // its tables are out of step
                }
            }
        }
    }

    private Object[] invoke(State s, ExportTable.Export e, Object handler, long hash, Marshal.MethodInfo mi,
            Object[] args) {
        FrameBuffer buf = s.buf;
        FastChannel ch = s.fast;
        boolean fastArgs = options.serializer == RouterOptions.Serializer.FAST && !mi.rawArgs;

        // The caller marshals, on its own thread and class loader, as the network path does.
        buf.clear();
        if (!mi.rawArgs) {
            if (fastArgs) {
                ch.lockWrite();
            }
            try {
                if (fastArgs) {
                    Marshal.writeFast(ch, buf, mi.params, args, options.listener);
                } else {
                    Marshal.write(buf, mi.params, args, false);
                }
            } catch (IOException | RuntimeException x) {
                return new Object[] {null, new MarshalException("error marshalling arguments", x)};
            } finally {
                if (fastArgs) {
                    ch.unlockWrite();
                }
            }
        }

        // The callee: as ServerConnection.prepare and complete.
        Object target = e.target;
        Thread thread = Thread.currentThread();
        ClassLoader callerLoader = thread.getContextClassLoader();
        Object oldHandler = RmiInternals.setConnectionHandler(handler);
        boolean entered = false;
        boolean argsRead = false;
        Throwable thrown = null;
        Marshal.MethodInfo rmi = null;
        List<Remote> pins = null;
        boolean fastResult = false;
        try {
            Remote impl = RmiInternals.targetRemoved(target) ? null : RmiInternals.targetImpl(target);
            if (impl == null) {
                throw new NoSuchObjectException("no such object in table");
            }
            RmiInternals.enterCall(target);
            entered = true;
            ClassLoader ccl = RmiInternals.targetLoader(target);
            if (ccl != callerLoader) {
                thread.setContextClassLoader(ccl);
            }
            Method m = RemoteMethods.of(impl.getClass()).find(hash);
            if (m == null) {
                throw new UnmarshalException("unrecognized method hash: method not supported by remote object");
            }
            rmi = Marshal.info(m);
            Object[] params;
            buf.position(0);
            argsRead = true;
            try {
                if (rmi.rawArgs) {
                    params = args == null ? new Object[0] : args.clone();
                } else if (fastArgs) {
                    params = Marshal.readFast(ch, buf, rmi.params, RmiInternals.targetFilter(target));
                } else {
                    params = Marshal.read(buf, rmi.params, false, true);
                }
            } catch (IOException | ClassNotFoundException x) {
                throw new UnmarshalException("error unmarshalling arguments", x);
            }
            Object result;
            try {
                result = m.invoke(impl, params);
            } catch (InvocationTargetException x) {
                throw x.getTargetException();
            }
            params = null;
            buf.clear();
            fastResult = options.serializer == RouterOptions.Serializer.FAST && !rmi.rawResult;
            if (fastResult) {
                ch.lockWrite();
            }
            try {
                pins = fastResult ? Marshal.writeOneFast(ch, buf, rmi.result, result, options.listener)
                        : Marshal.writeOne(buf, rmi.result, result, rmi.rawResult);
            } catch (IOException x) {
                throw new MarshalException("error marshalling return", x);
            } finally {
                if (fastResult) {
                    ch.unlockWrite();
                }
            }
        } catch (Throwable t) {
            thrown = t;
        } finally {
            if (fastArgs && !argsRead) {
                buf.position(0);
                try {
                    Marshal.skipFast(ch, buf); // keeps the channel's read table in step with its write table
                } catch (IOException ignored) {
                    // the channel is broken and dropped
                }
            }
            if (entered) {
                RmiInternals.exitCall(target);
            }
            thread.setContextClassLoader(callerLoader);
            RmiInternals.setConnectionHandler(oldHandler);
        }

        // Back to the caller: it unmarshals on its own class loader.
        try {
            if (thrown != null) {
                return new Object[] {null, copyException(ch, buf, thrown, entered)};
            }
            buf.position(0);
            Object result;
            try {
                result = fastResult ? Marshal.readOneFast(ch, buf, mi.result)
                        : Marshal.readOne(buf, mi.result, rmi.rawResult);
            } catch (Throwable t) {
                return new Object[] {null, new UnmarshalException("error unmarshalling return", asException(t))};
            }
            return new Object[] {result, null};
        } finally {
            Reference.reachabilityFence(pins); // the result's exported objects until the caller's stubs are registered
        }
    }

    /** The exception the caller sees: wrapped as JRMP does, copied, then the caller's trace appended. */
    private Exception copyException(FastChannel ch, FrameBuffer buf, Throwable thrown, boolean entered) {
        Throwable t = thrown;
        if (!entered && t instanceof NoSuchObjectException) {
            t.setStackTrace(new StackTraceElement[0]); // as Transport.serviceCall
        } else if (t instanceof Error) {
            t = new ServerError("Error occurred in server thread", (Error) t);
        } else if (t instanceof RemoteException) {
            t = new ServerException("RemoteException occurred in server thread", (Exception) t);
        }
        if (SUPPRESS_STACK_TRACES) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                c.setStackTrace(new StackTraceElement[0]);
            }
        }
        boolean fast = options.serializer == RouterOptions.Serializer.FAST;
        if (!write(ch, buf, t, fast)
                && !write(ch, buf, new MarshalException("error marshalling exception " + t, null), fast)) {
            return new UnmarshalException("Error unmarshaling return header");
        }
        Object ex;
        buf.position(0);
        try {
            ex = fast ? Marshal.readExceptionFast(ch, buf) : Marshal.readException(buf);
        } catch (Throwable x) {
            return new UnmarshalException("Error unmarshaling return", asException(x));
        }
        if (!(ex instanceof Exception)) {
            return new UnmarshalException("Return type not Exception");
        }
        Exception copy = (Exception) ex;
        StackTraceElement[] callee = copy.getStackTrace();
        StackTraceElement[] caller = new Throwable().getStackTrace();
        StackTraceElement[] all = new StackTraceElement[callee.length + caller.length];
        System.arraycopy(callee, 0, all, 0, callee.length);
        System.arraycopy(caller, 0, all, callee.length, caller.length);
        copy.setStackTrace(all);
        return copy;
    }

    private boolean write(FastChannel ch, FrameBuffer buf, Throwable t, boolean fast) {
        buf.clear();
        if (fast) {
            ch.lockWrite();
        }
        try {
            if (fast) {
                Marshal.writeExceptionFast(ch, buf, t, options.listener);
            } else {
                Marshal.writeException(buf, t);
            }
            return true;
        } catch (IOException | RuntimeException x) {
            return false;
        } finally {
            if (fast) {
                ch.unlockWrite();
            }
        }
    }

    private static Exception asException(Throwable t) {
        return t instanceof Exception ? (Exception) t : new Exception(t);
    }
}

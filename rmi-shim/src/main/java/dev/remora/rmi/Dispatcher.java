package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.MessageTooLargeError;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.rmi.AccessException;
import java.rmi.MarshalException;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.ServerError;
import java.rmi.ServerException;
import java.rmi.UnmarshalException;
import java.util.List;

/**
 * JRMP's server side of a call ({@code Transport.serviceCall} and {@code UnicastServerRef.dispatch}), written once and
 * used by both paths that serve calls: {@link ServerConnection} (a Remora connection) and {@link LocalCall} (the
 * co-located short-cut). In two steps, because a fast call's arguments must be read on the connection's reading
 * thread, in arrival order, while it may be invoked on another:
 * <ol>
 *   <li>{@link #prepare}: the Target (unknown, unexported or being unexported: NoSuchObjectException, sent with its
 *       stack trace cleared, as {@code serviceCall} does); the call count ({@code Target.incrementCallCount}: an
 *       unexport without force waits for the call); the implementation's context class loader; the method by hash
 *       (unknown: UnmarshalException); the arguments through the export's filter (an IOException or
 *       ClassNotFoundException: UnmarshalException, an AccessException as it is);</li>
 *   <li>{@link #complete}: the invocation, then the reply: the result; or, when the result cannot be serialized, the
 *       IOException that stopped it, flagged {@link Frame#FLAG_ABORTED} (JRMP's stream carries it as
 *       {@code TC_EXCEPTION}, which its client reads as a WriteAbortedException); or the exception: an Error inside a
 *       ServerError, a RemoteException inside a ServerException, anything else as it is, stack traces cleared when
 *       JRMP's {@code sun.rmi.server.suppressStackTraces} says so, and an exception that cannot be serialized
 *       aborted as a result is. The context class loader is the implementation's throughout, as in
 *       {@code serviceCall}.</li>
 * </ol>
 * The reply frame is written with the connection's {@link Marshaller} and handed to a {@link ReplySink} while the
 * marshaller's write lock is held; the call count is released once it is sent. {@code RemoteServer.getClientHost()}
 * is the callers' business (they set the connection handler).
 */
final class Dispatcher {
    private static final StackTraceElement[] NO_TRACE = new StackTraceElement[0];

    private final RouterOptions options;
    /** A tracing agent's context, handed over around each call that carries one; null: none (remora.tracing). */
    final TraceContext tracing;

    Dispatcher(RouterOptions options, TraceContext tracing) {
        this.options = options;
        this.tracing = tracing;
    }

    /** Where a reply frame goes: the connection's link, or (co-located) back to the caller. */
    interface ReplySink {
        /**
         * The finished reply to {@code c}, called with the writer's lock held (a fast reply must be sent before it
         * is released); {@code pins}: the exported objects the result carries as stubs, to keep reachable until the
         * client has registered them with the DGC, or null.
         */
        void reply(Call c, FrameBuffer reply, List<Remote> pins);

        /** Not even the IOException of an aborted reply could be written: the client can get no answer. */
        void unanswerable(Call c);

        /**
         * One-way call {@code c} has run (its method and implementation still set), without a reply;
         * {@code thrown}: what it threw, or what stopped it before it ran (its arguments, its object), else null.
         */
        default void onewayDone(Call c, Throwable thrown) {
        }
    }

    /** One call between reading its arguments and answering it; reusable (prepare fills it, complete empties it). */
    static final class Call {
        int callId;
        boolean oneway;
        /** A future call (lane Frame.LANE_ANY): its reply may be held back to leave with others'. */
        boolean future;
        Object target;
        Remote impl;
        Method method;
        Marshal.MethodInfo info;
        Object[] params;
        ClassLoader loader;
        boolean entered;
        Throwable thrown;
        /** Set by the caller after {@link #prepare}: the called object's asynchronous methods, for the reply. */
        AsyncMethods declares;
        /** Set by the caller: the caller's trace context (key, value, ...), or null; {@link #complete} clears it. */
        String[] context;
    }

    /**
     * Step 1, on the thread that reads the call: {@code in} is positioned at the arguments, which {@code reader} (the
     * frame's) reads, unless the method's are all primitive (raw) or {@code given} (co-located raw arguments, never
     * copied: boxes are immutable). A message nobody reads is skipped (a fast one's type descriptors still count).
     * {@code c.callId} and {@code c.oneway} are the caller's.
     */
    void prepare(Call c, Object target, long hash, FrameBuffer in, Marshaller reader, Object[] given) {
        c.target = target;
        c.impl = null;
        c.method = null;
        c.info = null;
        c.params = null;
        c.loader = null;
        c.entered = false;
        c.thrown = null;
        c.declares = null;
        boolean read = false;
        Thread thread = Thread.currentThread();
        ClassLoader saved = thread.getContextClassLoader();
        ClassLoader ccl = null;
        try {
            // As ObjectTable's lookup: an unexported object is no longer in the table.
            Remote impl = target == null || RmiInternals.targetRemoved(target) ? null
                    : RmiInternals.targetImpl(target);
            if (impl == null) {
                throw new NoSuchObjectException("no such object in table");
            }
            RmiInternals.enterCall(target);
            c.entered = true;
            c.impl = impl;
            ccl = RmiInternals.targetLoader(target);
            c.loader = ccl;
            if (ccl != saved) {
                thread.setContextClassLoader(ccl);
            }
            Method m = RemoteMethods.of(impl.getClass()).find(hash);
            if (m == null) {
                throw new UnmarshalException("unrecognized method hash: method not supported by remote object");
            }
            Marshal.MethodInfo mi = Marshal.info(m);
            c.method = m;
            c.info = mi;
            read = true;
            try {
                c.params = given != null ? given : mi.rawArgs ? Marshal.readRaw(in, mi.params)
                        : reader.readArguments(in, mi.params, RmiInternals.targetFilter(target));
            } catch (AccessException e) {
                throw e;
            } catch (IOException | ClassNotFoundException e) {
                throw new UnmarshalException("error unmarshalling arguments", e);
            }
        } catch (Throwable e) {
            c.thrown = e;
        } finally {
            if (ccl != null && ccl != saved) {
                thread.setContextClassLoader(saved);
            }
        }
        if (!read) {
            try {
                reader.skip(in);
            } catch (IOException ignored) {
                // a fast channel is broken() now; its connection closes
            }
        }
    }

    /**
     * Step 2, on the thread that runs the call: invokes (unless step 1 failed) and, but for a one-way call, writes
     * the reply into {@code out} with {@code writer} and hands it to {@code sink}. Never throws.
     */
    void complete(Call c, FrameBuffer out, Marshaller writer, ReplySink sink) {
        Thread thread = Thread.currentThread();
        ClassLoader saved = thread.getContextClassLoader();
        ClassLoader ccl = c.loader;
        boolean swap = ccl != null && ccl != saved;
        boolean locked = false;
        String[] context = c.context;
        c.context = null;
        try {
            if (swap) {
                thread.setContextClassLoader(ccl);
            }
            Throwable thrown = c.thrown;
            List<Remote> pins = null;
            if (thrown == null) {
                Object result = null;
                TraceContext tc = context == null ? null : tracing;
                if (tc != null) {
                    tc.enter(context);
                    options.listener.traceContext(false);
                }
                try {
                    result = c.method.invoke(c.impl, c.params);
                } catch (InvocationTargetException e) {
                    thrown = e.getTargetException();
                } catch (Throwable e) {
                    thrown = e;
                } finally {
                    if (tc != null) {
                        tc.exit();
                    }
                }
                c.params = null;
                if (thrown == null && !c.oneway) {
                    Marshal.MethodInfo mi = c.info;
                    if (!mi.rawResult) {
                        writer.lockWrite(); // held until sent, see Marshaller
                        locked = true;
                    }
                    begin(out, Frame.REPLY, mi.rawResult ? 0 : writer.flag(), c);
                    try {
                        if (mi.rawResult) {
                            Marshal.writePrimitive(out, mi.result, result);
                        } else {
                            pins = writer.writeValue(out, mi.result, result);
                        }
                    } catch (IOException e) {
                        if (!locked) {
                            writer.lockWrite();
                            locked = true;
                        }
                        pins = null;
                        if (!writeAborted(out, Frame.REPLY, c, writer, e)) {
                            sink.unanswerable(c);
                            return;
                        }
                    } catch (MessageTooLargeError e) {
                        // JRMP's stream would carry it; a Remora frame cannot, and the call has run: say so
                        thrown = new MarshalException("error marshalling return", new IOException(e.getMessage()
                                + "; results this large need remora.transport=jrmp"));
                    } catch (Throwable e) {
                        boolean again = writer != Marshaller.JDK && remorasOwn(e);
                        pins = again ? byJdk(out, c, mi, result, e) : NOT_WRITTEN;
                        if (pins == NOT_WRITTEN) {
                            // JRMP: the normal return is under way, so the exception cannot follow it; its server
                            // drops the connection (Transport.serviceCall), its client reads EOF. This call alone
                            // ends so. Said once per kind here, where JRMP says nothing.
                            options.listener.note("reply:" + e.getClass().getName(), "the result of " + c.method
                                    + " could not be written (" + e + "); its caller reads the end of the call, as"
                                    + " with JRMP");
                            begin(out, Frame.EXCEPTION, Frame.FLAG_BROKEN, c); // no payload: not FAST
                            Frame.finish(out);
                            sink.reply(c, out, null);
                            return;
                        }
                    }
                }
            }
            if (c.oneway) {
                sink.onewayDone(c, thrown);
                return;
            }
            if (thrown != null) {
                if (!locked) {
                    writer.lockWrite();
                    locked = true;
                }
                pins = null;
                if (!writeException(out, c, thrown, writer)) {
                    sink.unanswerable(c);
                    return;
                }
            }
            Frame.finish(out);
            sink.reply(c, out, pins);
        } finally {
            if (locked) {
                writer.unlockWrite();
            }
            if (c.entered) {
                c.entered = false;
                RmiInternals.exitCall(c.target);
            }
            if (swap) {
                thread.setContextClassLoader(saved);
            }
            forget(c);
        }
    }

    /**
     * A call state is reused (per connection reader, per thread for co-located calls): once answered it must not keep
     * the implementation, its Target, the arguments or the exception reachable (an unexported object is collected,
     * as under JRMP).
     */
    private static void forget(Call c) {
        c.target = null;
        c.impl = null;
        c.method = null;
        c.info = null;
        c.params = null;
        c.loader = null;
        c.thrown = null;
        c.declares = null;
    }

    /**
     * Starts reply frame {@code out} to {@code c}: the header and, when the caller set {@code c.declares} (the first
     * reply about that object on its connection), the object's asynchronous methods ({@link Frame#FLAG_DECLARES}).
     */
    private static void begin(FrameBuffer out, byte kind, byte flags, Call c) {
        AsyncMethods d = c.declares;
        Frame.begin(out, kind, d == null ? flags : (byte) (flags | Frame.FLAG_DECLARES), c.callId);
        if (d != null) {
            d.write(out);
        }
    }

    /**
     * Whether {@code e}, thrown while Remora's serializer wrote a value, is Remora's own failure rather than the
     * application's (a class's writeObject or writeReplace throwing): an Error, or an exception thrown by a class of
     * Remora's own code (the jar, or in tests the directories, of this class and of the serializer). Such a result or
     * exception is written again by JDK serialization, as plain RMI would have.
     */
    static boolean remorasOwn(Throwable e) {
        if (e instanceof Error) {
            return true;
        }
        StackTraceElement[] trace = e.getStackTrace();
        if (trace.length == 0 || !trace[0].getClassName().startsWith("dev.remora.")) {
            return false;
        }
        try {
            Class<?> k = Class.forName(trace[0].getClassName(), false, Dispatcher.class.getClassLoader());
            java.security.CodeSource at = k.getProtectionDomain().getCodeSource();
            return at != null && (at.equals(Dispatcher.class.getProtectionDomain().getCodeSource())
                    || at.equals(MessageTooLargeError.class.getProtectionDomain().getCodeSource()));
        } catch (ClassNotFoundException | LinkageError | RuntimeException x) {
            return false;
        }
    }

    /** {@link #byJdk}'s answer when the JDK could not write the result either (compared by identity). */
    private static final List<Remote> NOT_WRITTEN = java.util.Collections.unmodifiableList(new java.util.ArrayList<>());

    /**
     * The result written again by JDK serialization after Remora's serializer failed on it ({@code e}): its pins
     * (null: none), or {@link #NOT_WRITTEN}. The caller reads a reply without {@link Frame#FLAG_FAST} with JDK
     * serialization.
     */
    private List<Remote> byJdk(FrameBuffer out, Call c, Marshal.MethodInfo mi, Object result, Throwable e) {
        try {
            begin(out, Frame.REPLY, (byte) 0, c);
            List<Remote> pins = Marshaller.JDK.writeValue(out, mi.result, result);
            options.listener.fallback("reply-jdk:" + e.getClass().getName(), "Remora's serializer could not write the"
                    + " result of " + c.method + " (" + e + "); JDK serialization wrote it");
            return pins;
        } catch (Throwable again) {
            return NOT_WRITTEN;
        }
    }

    /** An EXCEPTION frame for {@code thrown}, wrapped as JRMP does; false when nothing could be written. */
    private boolean writeException(FrameBuffer out, Call c, Throwable thrown, Marshaller writer) {
        Throwable t = thrown;
        if (!c.entered && t instanceof NoSuchObjectException) {
            t.setStackTrace(NO_TRACE); // as Transport.serviceCall: sent as it is, trace cleared
        } else if (t instanceof Error) {
            t = new ServerError("Error occurred in server thread", (Error) t);
        } else if (t instanceof RemoteException) {
            t = new ServerException("RemoteException occurred in server thread", (Exception) t);
        }
        if (options.suppressStackTraces()) {
            clearStackTraces(t);
        }
        begin(out, Frame.EXCEPTION, writer.flag(), c);
        try {
            writer.writeThrowable(out, t);
            return true;
        } catch (IOException e) {
            return writeAborted(out, Frame.EXCEPTION, c, writer, e);
        } catch (Throwable e) {
            if (writer == Marshaller.JDK || !remorasOwn(e)) {
                return false;
            }
            try { // as a result Remora's serializer failed on (complete)
                begin(out, Frame.EXCEPTION, (byte) 0, c);
                Marshaller.JDK.writeThrowable(out, t);
                options.listener.fallback("exception-jdk:" + e.getClass().getName(), "Remora's serializer could not"
                        + " write a call's " + t.getClass().getName() + " (" + e + "); JDK serialization wrote it");
                return true;
            } catch (Throwable again) {
                return false;
            }
        }
    }

    /** The IOException that stopped a reply, in its place ({@link Frame#FLAG_ABORTED}); false if even that fails. */
    private static boolean writeAborted(FrameBuffer out, byte kind, Call c, Marshaller writer, IOException e) {
        begin(out, kind, (byte) (writer.flag() | Frame.FLAG_ABORTED), c);
        try {
            writer.writeThrowable(out, e);
            return true;
        } catch (IOException | RuntimeException x) {
            return false;
        }
    }

    /** As {@code UnicastServerRef.clearStackTraces}: the exception's and every cause's. */
    private static void clearStackTraces(Throwable t) {
        for (int i = 0; t != null && i < 1024; i++, t = t.getCause()) { // JRMP's loop, bounded against a cycle
            t.setStackTrace(NO_TRACE);
        }
    }
}

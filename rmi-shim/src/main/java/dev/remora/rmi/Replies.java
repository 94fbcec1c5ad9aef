package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.io.WriteAbortedException;
import java.rmi.UnmarshalException;

/**
 * JRMP's client side of a reply ({@code UnicastRef.invoke} and {@code StreamRemoteCall.executeCall}), written once for
 * replies that came over a Remora connection and for co-located calls (whose reply {@link Dispatcher} wrote into a
 * buffer):
 * <ul>
 *   <li>a result: an IOException or ClassNotFoundException while reading it is an UnmarshalException("error
 *       unmarshalling return"); anything else it throws (an Error or RuntimeException from a {@code readObject}) is
 *       thrown as it is;</li>
 *   <li>an exception: an Exception while reading it is an UnmarshalException("Error unmarshaling return"), an Error
 *       is thrown as it is; what is not an Exception is an UnmarshalException("Return type not Exception"); else its
 *       stack trace becomes the server's, then the client's, as {@code exceptionReceivedFromServer} makes it;</li>
 *   <li>an aborted reply ({@link Frame#FLAG_ABORTED}): the server's IOException inside a WriteAbortedException, as
 *       JRMP's stream reads a {@code TC_EXCEPTION}, inside the UnmarshalException of a result or exception;</li>
 *   <li>a broken reply ({@link Frame#FLAG_BROKEN}): an UnmarshalException("error unmarshalling return") of an
 *       EOFException, as JRMP's client sees a connection its server dropped after the normal return's header.</li>
 * </ul>
 */
final class Replies {
    private Replies() {
    }

    /**
     * Reads the payload of the reply frame {@code f} (positioned after its header) with the reader its flags name;
     * void: nothing. Throws what reading threw. {@code stubLoader}: the loader of the class of the stub the call was
     * made through ({@link Marshaller#readValue}).
     */
    static Object read(FrameBuffer f, Marshal.MethodInfo mi, Marshaller reader, ClassLoader stubLoader)
            throws IOException, ClassNotFoundException {
        byte[] a = f.array();
        if ((a[Frame.OFF_FLAGS] & Frame.FLAG_BROKEN) != 0) {
            return null;
        }
        if (a[Frame.OFF_KIND] == Frame.EXCEPTION || (a[Frame.OFF_FLAGS] & Frame.FLAG_ABORTED) != 0) {
            return reader.readThrowable(f, stubLoader);
        }
        Class<?> type = mi.result;
        if (type == void.class) {
            return null;
        }
        return mi.rawResult ? Marshal.readPrimitive(f, type) : reader.readValue(f, type, stubLoader);
    }

    /** The outcome {@code {result, thrown}} of the reply frame {@code f}, read now. */
    static Object[] outcome(FrameBuffer f, Marshal.MethodInfo mi, Marshalling m, boolean colocated,
            ClassLoader stubLoader) {
        byte[] a = f.array();
        Frame.toPayload(f);
        Object value = null;
        Throwable failure = null;
        try {
            value = read(f, mi, m.reader(a[Frame.OFF_FLAGS]), stubLoader);
        } catch (Throwable t) {
            failure = t;
        }
        return outcome(a[Frame.OFF_KIND], a[Frame.OFF_FLAGS], value, failure, colocated);
    }

    /**
     * The outcome {@code {result, thrown}} of a reply of {@code kind} and {@code flags} whose payload {@link #read}
     * gave {@code value} or threw {@code failure}.
     *
     * @param colocated the server ran on this thread (the short-cut): its exceptions' traces end in this thread's
     *     frames below the {@link Dispatcher}, which JRMP's server thread would not have
     */
    static Object[] outcome(byte kind, byte flags, Object value, Throwable failure, boolean colocated) {
        boolean exceptional = kind == Frame.EXCEPTION;
        if (failure != null) {
            if (exceptional ? failure instanceof Exception
                    : failure instanceof IOException || failure instanceof ClassNotFoundException) {
                return new Object[] {null, new UnmarshalException(exceptional ? "Error unmarshaling return"
                        : "error unmarshalling return", (Exception) failure)};
            }
            return new Object[] {null, failure}; // as JRMP: not caught, thrown by UnicastRef.invoke
        }
        if ((flags & Frame.FLAG_BROKEN) != 0) { // JRMP's connection ended after the normal return's header
            return new Object[] {null, new UnmarshalException("error unmarshalling return", new EOFException())};
        }
        if ((flags & Frame.FLAG_ABORTED) != 0) {
            Exception cause = value instanceof Exception ? (Exception) value : null;
            return new Object[] {null, new UnmarshalException(exceptional ? "Error unmarshaling return"
                    : "error unmarshalling return", new WriteAbortedException("writing aborted", cause))};
        }
        if (!exceptional) {
            return new Object[] {value, null};
        }
        if (!(value instanceof Exception)) {
            return new Object[] {null, new UnmarshalException("Return type not Exception")};
        }
        Exception e = (Exception) value;
        exceptionReceivedFromServer(e, colocated);
        return new Object[] {null, e};
    }

    /**
     * As {@code StreamRemoteCall.exceptionReceivedFromServer}: the server's trace, then the client's, which starts
     * with JRMP's own {@code exceptionReceivedFromServer} and {@code executeCall} frames (taken from this JDK) and
     * goes on from {@code UnicastRef.invoke} (Remora's frames above it, which JRMP does not have, are left out; that
     * frame at the line where JRMP calls {@code executeCall}).
     * Co-located, the exception (and each cause) was made on this thread: its frames below the {@link Dispatcher},
     * the caller's, are cut first, so the client's frames appear once.
     */
    static void exceptionReceivedFromServer(Exception e, boolean colocated) {
        StackTraceElement[] here = new Throwable().getStackTrace();
        if (colocated) {
            Throwable t = e;
            for (int i = 0; t != null && i < 1024; i++, t = t.getCause()) {
                cutCallersFrames(t, here);
            }
        }
        StackTraceElement[] server = e.getStackTrace();
        StackTraceElement[] jrmp = RmiInternals.exceptionReceivedFrames();
        int from = clientFramesStart(here);
        StackTraceElement[] all = new StackTraceElement[server.length + jrmp.length + here.length - from];
        System.arraycopy(server, 0, all, 0, server.length);
        System.arraycopy(jrmp, 0, all, server.length, jrmp.length);
        System.arraycopy(here, from, all, server.length + jrmp.length, here.length - from);
        int invoke = server.length + jrmp.length;
        if (invoke < all.length && isUnicastRefInvoke(all[invoke])) {
            all[invoke] = atExecuteCall(all[invoke]);
        }
        e.setStackTrace(all);
    }

    private static boolean isUnicastRefInvoke(StackTraceElement e) {
        return e.getClassName().equals("sun.rmi.server.UnicastRef") && e.getMethodName().equals("invoke");
    }

    /** The hooked frame at the line where JRMP's {@code UnicastRef.invoke} calls {@code executeCall}, made once. */
    private static volatile StackTraceElement invokeFrame;

    private static StackTraceElement atExecuteCall(StackTraceElement e) {
        StackTraceElement f = invokeFrame;
        if (f == null || !f.getClassName().equals(e.getClassName()) || !sameModule(f, e)) {
            int line = RmiInternals.executeCallLine();
            invokeFrame = f = line < 0 ? e : withLine(e, line);
        }
        return f;
    }

    private static boolean sameModule(StackTraceElement a, StackTraceElement b) {
        return java.util.Objects.equals(a.getModuleVersion(), b.getModuleVersion());
    }

    /**
     * {@code e} at another line. The JVM's elements for JDK classes carry a private flag that leaves the module
     * version and class loader out of {@code toString()}, which the public constructor cannot set; so the element is
     * copied through its serial form (fields in the specified order: {@code format}, then {@code lineNumber}, right
     * after the class descriptor) with the line changed, and the copy checked. Failing that: the public constructor,
     * without what toString() would have left out.
     */
    static StackTraceElement withLine(StackTraceElement e, int line) {
        try {
            java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
            // subclasses (empty): under remora.oos=fast an exact stream would write Remora's format, not the JDK's
            try (java.io.ObjectOutputStream o = new java.io.ObjectOutputStream(b) { }) {
                o.writeObject(e);
            }
            byte[] a = b.toByteArray();
            for (int i = 0; i + 6 < a.length; i++) { // TC_ENDBLOCKDATA, TC_NULL (no superclass), format, lineNumber
                if (a[i] == 0x78 && a[i + 1] == 0x70 && FrameBuffer.getInt(a, i + 3) == e.getLineNumber()) {
                    a[i + 3] = (byte) (line >>> 24);
                    a[i + 4] = (byte) (line >>> 16);
                    a[i + 5] = (byte) (line >>> 8);
                    a[i + 6] = (byte) line;
                    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                            new java.io.ByteArrayInputStream(a)) { }) {
                        StackTraceElement c = (StackTraceElement) in.readObject();
                        if (c.getLineNumber() == line && c.getClassName().equals(e.getClassName())
                                && c.getMethodName().equals(e.getMethodName()) && c.toString().equals(
                                        e.toString().replace(":" + e.getLineNumber() + ")", ":" + line + ")"))) {
                            return c;
                        }
                    }
                    break;
                }
            }
        } catch (Exception | LinkageError x) {
            // below
        }
        String s = e.toString();
        String loader = e.getClassLoaderName();
        String version = e.getModuleVersion();
        return new StackTraceElement(loader != null && s.startsWith(loader + "/") ? loader : null,
                e.getModuleName(), version != null && s.contains("@" + version + "/") ? version : null,
                e.getClassName(), e.getMethodName(), e.getFileName(), line);
    }

    /**
     * Where the client's frames begin: at {@code UnicastRef.invoke} (whose hook called the router), or, with no hook
     * on the stack (the router called directly), below the router's entry point.
     */
    private static int clientFramesStart(StackTraceElement[] here) {
        int below = 0;
        for (int i = 0; i < here.length; i++) {
            String c = here[i].getClassName();
            if (isUnicastRefInvoke(here[i])) {
                return i;
            }
            if (c.equals(RemoraRouter.class.getName()) && here[i].getMethodName().equals("invoke")) {
                below = i + 1;
            }
        }
        return below;
    }

    /**
     * Drops the frames {@code t}'s trace shares with this thread's {@code here} (same methods, from the bottom) when
     * what is left ends in the {@link Dispatcher}: the frames of the caller that ran the server's side.
     */
    private static void cutCallersFrames(Throwable t, StackTraceElement[] here) {
        StackTraceElement[] trace = t.getStackTrace();
        int i = trace.length;
        int j = here.length;
        while (i > 0 && j > 0 && sameMethod(trace[i - 1], here[j - 1])) {
            i--;
            j--;
        }
        if (i < trace.length && i > 0 && trace[i - 1].getClassName().equals(Dispatcher.class.getName())) {
            StackTraceElement[] server = new StackTraceElement[i];
            System.arraycopy(trace, 0, server, 0, i);
            t.setStackTrace(server);
        }
    }

    private static boolean sameMethod(StackTraceElement a, StackTraceElement b) {
        return a.getMethodName().equals(b.getMethodName()) && a.getClassName().equals(b.getClassName());
    }
}

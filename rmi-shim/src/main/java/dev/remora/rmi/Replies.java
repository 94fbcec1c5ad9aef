package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
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
 *       JRMP's stream reads a {@code TC_EXCEPTION}, inside the UnmarshalException of a result or exception.</li>
 * </ul>
 */
final class Replies {
    private Replies() {
    }

    /**
     * Reads the payload of the reply frame {@code f} (positioned after its header) with the reader its flags name;
     * void: nothing. Throws what reading threw.
     */
    static Object read(FrameBuffer f, Marshal.MethodInfo mi, Marshaller reader)
            throws IOException, ClassNotFoundException {
        byte[] a = f.array();
        if (a[Frame.OFF_KIND] == Frame.EXCEPTION || (a[Frame.OFF_FLAGS] & Frame.FLAG_ABORTED) != 0) {
            return reader.readThrowable(f);
        }
        Class<?> type = mi.result;
        if (type == void.class) {
            return null;
        }
        return mi.rawResult ? Marshal.readPrimitive(f, type) : reader.readValue(f, type);
    }

    /** The outcome {@code {result, thrown}} of the reply frame {@code f}, read now. */
    static Object[] outcome(FrameBuffer f, Marshal.MethodInfo mi, Marshalling m, boolean colocated) {
        byte[] a = f.array();
        f.position(Frame.HEADER);
        Object value = null;
        Throwable failure = null;
        try {
            value = read(f, mi, m.reader(a[Frame.OFF_FLAGS]));
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
     * goes on from {@code UnicastRef.invoke} (Remora's frames above it, which JRMP does not have, are left out).
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
        e.setStackTrace(all);
    }

    /**
     * Where the client's frames begin: at {@code UnicastRef.invoke} (whose hook called the router), or, with no hook
     * on the stack (the router called directly), below the router's entry point.
     */
    private static int clientFramesStart(StackTraceElement[] here) {
        int below = 0;
        for (int i = 0; i < here.length; i++) {
            String c = here[i].getClassName();
            if (c.equals("sun.rmi.server.UnicastRef") && here[i].getMethodName().equals("invoke")) {
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

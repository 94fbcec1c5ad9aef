package dev.remora.bootstrap;

import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.lang.invoke.MethodHandle;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.net.Socket;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The one door between code inlined into JDK classes and the agent. Defined at run time as
 * {@code java.io.RemoraBridge} (see package-info); uses java.base types only.
 *
 * <p>Each hook is a static method that calls a {@link MethodHandle} bound by the agent through {@link #install}. Until
 * then, and after {@link #uninstall}, every hook answers "do what the JDK does". Contract with the advice: the
 * default value of every return (null, false) means "proceed with plain RMI", so advice whose body fails and is
 * suppressed by Byte Buddy also falls back to plain RMI. Exceptions thrown here go to the advice's exception handler,
 * {@link #adviceFailed}, which counts them and reports the first one.
 */
public final class RemoraBridge {

    private static volatile MethodHandle clientInvoke;  // (Object,Object,Method,Object[],long)Object[]
    private static volatile MethodHandle exported;      // (Object,Object,Object)void
    private static volatile MethodHandle dispatch;      // (Object,Object)void
    private static volatile MethodHandle accept;        // (Object,Socket)Socket
    private static volatile MethodHandle streamWrite;   // (Object,Object)void
    private static volatile MethodHandle streamRead;    // (Object)void
    private static volatile MethodHandle failed;        // (Throwable)void
    private static volatile MethodHandle async;         // (Callable)CompletableFuture
    private static volatile MethodHandle stubsArrived;  // (Object,Object)void
    private static volatile MethodHandle fastWriter;    // (ObjectOutputStream,Object)ObjectOutputStream
    private static volatile MethodHandle fastReader;    // (ObjectInputStream,Object)Object
    private static volatile MethodHandle fastDescriptor; // (ObjectInputStream)ObjectStreamClass
    /**
     * remora.oos=fast: each application ObjectOutputStream (exact class) or ObjectInputStream (or subclass) that speaks Remora's
     * format, mapped to the serializer stream every public method forwards to. Weak keys: an abandoned stream goes
     * with its delegate (which never refers back to it).
     */
    private static final Map<Object, Object> FAST = new WeakHashMap<>();
    /**
     * One-entry cache in front of {@link #FAST}: {WeakReference to the stream used last, its delegate}. An array, as
     * the bridge is one class (a nested class would not be defined in java.base with it).
     */
    private static volatile Object[] lastFast;
    /**
     * Whether an application's ObjectInputStream subclass has been given a fast-format reader: until then, lookups
     * for subclasses (RMI's streams, Remora's own readers) return null at once.
     */
    private static volatile boolean subclassReaders;
    /** Fault injection for tests (remora.debug.faults=advice): every hook throws into its advice. */
    private static volatile boolean faulty;

    private RemoraBridge() {
    }

    /**
     * Binds the hooks; handles in the order of the fields above. Called once by the agent, through a method handle
     * of type (MethodHandle[])void: one reference parameter, a shape whose invoker the JDK has ready made (a boolean
     * parameter more spun two classes).
     */
    public static void install(MethodHandle[] handles) {
        clientInvoke = handles[0];
        exported = handles[1];
        dispatch = handles[2];
        accept = handles[3];
        streamWrite = handles[4];
        streamRead = handles[5];
        failed = handles[6];
        async = handles[7];
        stubsArrived = handles[8];
        fastWriter = handles.length > 9 ? handles[9] : null;
        fastReader = handles.length > 10 ? handles[10] : null;
        fastDescriptor = handles.length > 11 ? handles[11] : null;
    }

    /** remora.debug.faults=advice (tests): from now on every hook throws into its advice. */
    public static void injectFaults() {
        faulty = true;
    }

    /** Unbinds every hook: instrumented code behaves as the JDK's own again. */
    public static void uninstall() {
        clientInvoke = null;
        exported = null;
        dispatch = null;
        accept = null;
        async = null;
        stubsArrived = null;
        streamWrite = null;
        streamRead = null;
        fastWriter = null;
        fastReader = null;
        fastDescriptor = null;
        faulty = false;
    }

    private static void fault() {
        if (faulty) {
            throw new IllegalStateException("remora: fault injected into advice (remora.debug.faults=advice)");
        }
    }

    /**
     * Client side of {@code UnicastRef.invoke(Remote, Method, Object[], long)}.
     *
     * @return null to let JRMP make the call; otherwise the outcome of a call Remora made: {@code {result, thrown}}
     */
    public static Object[] clientInvoke(Object ref, Object proxy, Method method, Object[] args, long hash)
            throws Throwable {
        fault();
        MethodHandle h = clientInvoke;
        return h == null ? null : (Object[]) h.invokeExact(ref, proxy, method, args, hash);
    }

    /** After {@code UnicastServerRef.exportObject(Remote, Object, boolean)} returned {@code stub}. */
    public static void exported(Object serverRef, Object impl, Object stub) throws Throwable {
        fault();
        MethodHandle h = exported;
        if (h != null) {
            h.invokeExact(serverRef, impl, stub);
        }
    }

    /** Before {@code UnicastServerRef.dispatch(Remote, RemoteCall)}: a JRMP call arrived for {@code impl}. */
    public static void dispatch(Object serverRef, Object impl) throws Throwable {
        fault();
        MethodHandle h = dispatch;
        if (h != null) {
            h.invokeExact(serverRef, impl);
        }
    }

    /**
     * Before the JRMP connection handler ({@code connectionHandler}) reads a new connection.
     *
     * @return the socket JRMP goes on with (the same one, or one that replays bytes Remora peeked at), or null when
     *     Remora has taken the connection over and JRMP must not touch it
     */
    public static Socket accept(Object connectionHandler, Socket socket) throws Throwable {
        fault();
        MethodHandle h = accept;
        return h == null ? socket : (Socket) h.invokeExact(connectionHandler, socket);
    }

    /**
     * Before {@code DGCClient.registerRefs(Endpoint, List)}: stubs for remote objects at {@code endpoint} arrived.
     */
    public static void stubsArrived(Object endpoint, Object refs) throws Throwable {
        fault();
        MethodHandle h = stubsArrived;
        if (h != null) {
            h.invokeExact(endpoint, refs);
        }
    }

    /**
     * {@code dev.remora.api.Remora.async} (the API jar, in the application's class loader, finds this method by name
     * through the public lookup: {@code java.io} is exported, and the types are java.base's). Not called from advice.
     *
     * @return the task's future, or null when the agent does not take it (the API then runs the task itself)
     */
    public static java.util.concurrent.CompletableFuture<?> async(java.util.concurrent.Callable<?> task)
            throws Throwable {
        MethodHandle h = async;
        return h == null ? null : (java.util.concurrent.CompletableFuture<?>) h.invokeExact(task);
    }

    /** On entry to {@code ObjectOutputStream.writeObject/writeUnshared}. */
    public static void streamWrite(Object stream, Object obj) throws Throwable {
        fault();
        MethodHandle h = streamWrite;
        if (h != null) {
            h.invokeExact(stream, obj);
        }
    }

    /** On entry to {@code ObjectInputStream.readObject/readObject(Class)/readUnshared}. */
    public static void streamRead(Object stream) throws Throwable {
        fault();
        MethodHandle h = streamRead;
        if (h != null) {
            h.invokeExact(stream);
        }
    }

    /**
     * remora.oos=fast, in place of {@code ObjectOutputStream.writeStreamHeader()} of a stream whose class is exactly
     * ObjectOutputStream: the agent writes Remora's header to the stream under {@code bout} and returns the writer
     * every public method then forwards to.
     *
     * @return null to let the JDK write its own header (nothing was written: the stream stays in the JDK format),
     *     else the delegate, or the IOException that writing the header threw (for the constructor to throw)
     */
    public static Object oosHeader(ObjectOutputStream stream, Object bout) throws Throwable {
        fault();
        MethodHandle h = fastWriter;
        if (h == null || stream.getClass() != ObjectOutputStream.class || delegate(stream) != null) {
            return null; // the lookup runs once here, before any byte is written: if it cannot work, it fails now
        }
        Object outcome = (Object) h.invokeExact(stream, bout);
        if (outcome instanceof ObjectOutputStream) {
            register(stream, outcome);
        }
        return outcome;
    }

    /**
     * remora.oos=fast, in place of {@code ObjectInputStream.readStreamHeader()} of a stream whose class is exactly
     * ObjectInputStream: the agent reads the 4 header bytes from the stream under {@code bin}; Remora's header gives
     * a reader every public method then forwards to, the JDK's header is checked as the JDK does.
     *
     * @return null to let the JDK read the header (nothing was read), the delegate, {@code Boolean.TRUE} when the
     *     JDK's header was read and checked (the JDK's body is skipped, the stream goes on in the JDK format), or the
     *     exception the JDK's check would throw (EOFException, StreamCorruptedException)
     */
    public static Object oisHeader(ObjectInputStream stream, Object bin) throws Throwable {
        fault();
        MethodHandle h = fastReader;
        if (h == null || !readsFast(stream.getClass()) || delegate(stream) != null) {
            return null; // as in oosHeader: the lookup is proven before any byte is read
        }
        Object outcome = (Object) h.invokeExact(stream, bin);
        if (outcome instanceof ObjectInputStream) {
            if (stream.getClass() != ObjectInputStream.class) {
                subclassReaders = true;
            }
            register(stream, outcome);
        }
        return outcome;
    }

    /**
     * Readers that may meet Remora's format: ObjectInputStream and the application's subclasses (their overrides are
     * honoured), not RMI's own streams, which read what RMI's own subclassed writers wrote (the JDK's format), nor
     * Remora's.
     */
    private static boolean readsFast(Class<?> c) {
        if (c == ObjectInputStream.class) {
            return true;
        }
        String n = c.getName();
        return !n.startsWith("sun.rmi.") && !n.startsWith("java.rmi.") && !n.startsWith("dev.remora.rmi.")
                && !n.startsWith("dev.remora.serializer.");
    }

    /**
     * remora.oos=fast, in place of {@code ObjectInputStream.readClassDescriptor()} of a stream with a fast-format
     * reader ({@code delegate}): the class descriptor that reader is having the application's override read.
     */
    public static ObjectStreamClass oisClassDescriptor(ObjectInputStream delegate) throws Throwable {
        MethodHandle h = fastDescriptor;
        if (h == null) {
            throw new java.io.StreamCorruptedException("remora.oos=fast: no class descriptor to read");
        }
        return (ObjectStreamClass) h.invokeExact(delegate);
    }

    /** The fast-format writer that {@code stream}'s public methods forward to, or null (the JDK's body runs). */
    public static ObjectOutputStream oosDelegate(ObjectOutputStream stream) {
        return stream.getClass() == ObjectOutputStream.class ? (ObjectOutputStream) delegate(stream) : null;
    }

    /** The fast-format reader that {@code stream}'s public methods forward to, or null (the JDK's body runs). */
    public static ObjectInputStream oisDelegate(ObjectInputStream stream) {
        Class<?> c = stream.getClass();
        return c == ObjectInputStream.class || subclassReaders && readsFast(c) ? (ObjectInputStream) delegate(stream)
                : null;
    }

    private static void register(Object stream, Object delegate) {
        synchronized (FAST) {
            FAST.put(stream, delegate);
        }
        lastFast = new Object[] {new WeakReference<>(stream), delegate};
    }

    private static Object delegate(Object stream) {
        Object[] c = lastFast;
        if (c != null && ((WeakReference<?>) c[0]).get() == stream) {
            return c[1];
        }
        Object d;
        synchronized (FAST) {
            d = FAST.isEmpty() ? null : FAST.get(stream);
        }
        // Misses are cached too (a JDK-format stream read under remora.oos=fast): a stream is registered while it is
        // constructed, before any other method can reach it, and registering replaces this entry.
        lastFast = new Object[] {new WeakReference<>(stream), d};
        return d;
    }

    /** Exception handler of every advice (Byte Buddy {@code suppress = Throwable.class}). Never throws. */
    public static void adviceFailed(Throwable t) {
        try {
            MethodHandle h = failed;
            if (h != null) {
                h.invokeExact(t);
            }
        } catch (Throwable ignored) {
            // Nothing is left to report with: the host application must go on.
        }
    }
}

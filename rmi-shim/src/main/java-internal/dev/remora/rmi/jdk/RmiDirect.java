package dev.remora.rmi.jdk;

import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.server.ObjID;
import java.rmi.server.RMIClientSocketFactory;
import java.rmi.server.RMIServerSocketFactory;
import sun.rmi.server.Dispatcher;
import sun.rmi.server.MarshalInputStream;
import sun.rmi.server.UnicastRef;
import sun.rmi.server.UnicastServerRef;
import sun.rmi.server.Util;
import sun.rmi.transport.Endpoint;
import sun.rmi.transport.LiveRef;
import sun.rmi.transport.ObjectTable;
import sun.rmi.transport.Target;
import sun.rmi.transport.tcp.TCPEndpoint;
import sun.rmi.transport.tcp.TCPTransport;

/**
 * The public members of the JDK's RMI internals that {@link RmiInternals} uses, called directly: a method handle
 * per member spun classes in every JVM's first calls. Compiled on its own with {@code --add-exports} for the three
 * packages (the rest of the module is compiled with {@code --release 17}, which cannot name them); at run time the
 * agent opens them to Remora's module, and nothing here runs before {@link RmiInternals#check()} has seen that.
 * Every member is public with the same signature in JDK 17 and 25.
 *
 * <p>The package-private members are reached through {@link RmiInternals}' method handles, invoked here with their
 * exact types: adapting each handle to {@code Object} parameters ({@code asType}) spun a class per handle in every
 * JVM's first calls.
 */
final class RmiDirect {
    private RmiDirect() {
    }

    static Object liveRef(Object unicastRef) {
        return ((UnicastRef) unicastRef).getLiveRef();
    }

    static ObjID objId(Object liveRef) {
        return ((LiveRef) liveRef).getObjID();
    }

    static String host(Object tcpEndpoint) {
        return ((TCPEndpoint) tcpEndpoint).getHost();
    }

    static int port(Object tcpEndpoint) {
        return ((TCPEndpoint) tcpEndpoint).getPort();
    }

    static RMIClientSocketFactory clientSocketFactory(Object tcpEndpoint) {
        return ((TCPEndpoint) tcpEndpoint).getClientSocketFactory();
    }

    static RMIServerSocketFactory serverSocketFactory(Object tcpEndpoint) {
        return ((TCPEndpoint) tcpEndpoint).getServerSocketFactory();
    }

    static Object target(Remote impl) {
        return ObjectTable.getTarget(impl);
    }

    static Remote targetStub(Object target) {
        return ((Target) target).getStub();
    }

    static ObjectInputStream marshalInput(InputStream in) throws IOException {
        return new MarshalInputStream(in);
    }

    static long methodHash(Method m) {
        return Util.computeMethodHash(m);
    }

    /** {@code getEndpoint()}: (LiveRef)Endpoint. */
    static Object liveRefEndpoint(MethodHandle h, Object liveRef) throws Throwable {
        return (Endpoint) h.invokeExact((LiveRef) liveRef);
    }

    /** {@code getImpl()}: (Target)Remote. */
    static Remote targetImpl(MethodHandle h, Object target) throws Throwable {
        return (Remote) h.invokeExact((Target) target);
    }

    /** {@code getContextClassLoader()}: (Target)ClassLoader. */
    static ClassLoader targetLoader(MethodHandle h, Object target) throws Throwable {
        return (ClassLoader) h.invokeExact((Target) target);
    }

    /** {@code incrementCallCount()} or {@code decrementCallCount()}: (Target)void. */
    static void targetCall(MethodHandle h, Object target) throws Throwable {
        h.invokeExact((Target) target);
    }

    /** The {@code removed} field: (Target)boolean. */
    static boolean targetRemoved(MethodHandle h, Object target) throws Throwable {
        return (boolean) h.invokeExact((Target) target);
    }

    /** {@code getDispatcher()}: (Target)Dispatcher. */
    static Object targetDispatcher(MethodHandle h, Object target) throws Throwable {
        return (Dispatcher) h.invokeExact((Target) target);
    }

    /** The {@code filter} field: (UnicastServerRef)ObjectInputFilter. */
    static ObjectInputFilter serverRefFilter(MethodHandle h, Object serverRef) throws Throwable {
        return (ObjectInputFilter) h.invokeExact((UnicastServerRef) serverRef);
    }

    /** {@code skipDefaultResolveClass()}: (MarshalInputStream)void. */
    static void skipDefaultResolveClass(MethodHandle h, ObjectInputStream in) throws Throwable {
        h.invokeExact((MarshalInputStream) in);
    }

    /** The {@code transport} field: (TCPEndpoint)TCPTransport. */
    static Object endpointTransport(MethodHandle h, Object tcpEndpoint) throws Throwable {
        return (TCPTransport) h.invokeExact((TCPEndpoint) tcpEndpoint);
    }
}

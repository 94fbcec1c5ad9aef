package dev.remora.agent.hooks;

import dev.remora.bootstrap.RemoraBridge;
import java.lang.reflect.Method;
import java.net.Socket;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Advice inlined into {@code java.rmi}. Stateless, static, named by string in {@link HookPoints} and never loaded as
 * classes: Byte Buddy reads their bytes (with {@code RemoraBridge} renamed to {@code java.io.RemoraBridge}) and copies
 * the code into the JDK's methods. Every body suppresses Throwable; the default values (null, false) mean
 * "plain RMI", so a failing advice leaves the call to the JDK.
 */
public final class RmiAdvice {

    private RmiAdvice() {
    }

    /** {@code sun.rmi.server.UnicastRef.invoke(Remote, Method, Object[], long)}: the client side of every call. */
    public static final class ClientInvoke {
        private ClientInvoke() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object[] enter(@Advice.This Object ref, @Advice.Argument(0) Object proxy,
                @Advice.Argument(1) Method method, @Advice.Argument(2) Object[] args,
                @Advice.Argument(3) long hash) throws Throwable {
            return RemoraBridge.clientInvoke(ref, proxy, method, args, hash);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object[] outcome,
                @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (outcome != null) {
                result = outcome[0];
                thrown = (Throwable) outcome[1];
            }
        }
    }

    /** {@code sun.rmi.server.UnicastServerRef.exportObject(Remote, Object, boolean)}: learn ObjID to impl. */
    public static final class Export {
        private Export() {
        }

        @Advice.OnMethodExit(suppress = Throwable.class)
        public static void exit(@Advice.This Object serverRef, @Advice.Argument(0) Object impl,
                @Advice.Return Object stub) throws Throwable {
            RemoraBridge.exported(serverRef, impl, stub);
        }
    }

    /** {@code sun.rmi.server.UnicastServerRef.dispatch(Remote, RemoteCall)}: a call that came in over JRMP. */
    public static final class Dispatch {
        private Dispatch() {
        }

        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.This Object serverRef, @Advice.Argument(0) Object impl) throws Throwable {
            RemoraBridge.dispatch(serverRef, impl);
        }
    }

    /**
     * {@code sun.rmi.transport.tcp.TCPTransport$ConnectionHandler.run0()}: the JRMP accept path, before the JDK reads
     * the transport header. Remora may take the connection (skip the JDK's handler) or swap the socket for one that
     * replays the bytes it peeked at.
     */
    public static final class Accept {
        private Accept() {
        }

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static boolean enter(@Advice.This Object handler,
                @Advice.FieldValue(value = "socket", readOnly = false) Socket socket) throws Throwable {
            Socket next = RemoraBridge.accept(handler, socket);
            if (next == null) {
                return true;
            }
            socket = next;
            return false;
        }
    }

    /**
     * {@code sun.rmi.transport.DGCClient.registerRefs(Endpoint, List)}: references to remote objects at the endpoint
     * were unmarshalled (a stub arrived), before the JDK's DGC makes its dirty call for them.
     */
    public static final class StubsArrived {
        private StubsArrived() {
        }

        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static void enter(@Advice.Argument(0) Object endpoint, @Advice.Argument(1) Object refs)
                throws Throwable {
            RemoraBridge.stubsArrived(endpoint, refs);
        }
    }
}

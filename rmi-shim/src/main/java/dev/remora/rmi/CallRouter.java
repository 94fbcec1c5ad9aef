package dev.remora.rmi;

import java.io.IOException;
import java.lang.reflect.Method;
import java.net.Socket;

/**
 * What the RMI hooks ask of Remora's protocol layer (rmi-shim). The agent (dev.remora.agent.hooks.Hooks) calls one router per JVM; with
 * {@code remora.transport=jrmp} it is {@link #JRMP}, which leaves every call to the JDK.
 *
 * <p>Contract: a router never lets an exception out of {@link #invoke} once it has sent a call (a call must not run
 * twice): it reports failures in the outcome, as the RemoteException JRMP would throw. An exception thrown before
 * anything was sent makes the hook count a fallback and leave the call to JRMP.
 */
public interface CallRouter {

    /**
     * @return null to leave the call to JRMP; otherwise {@code {result, thrown}} of the call Remora made
     */
    Object[] invoke(Object unicastRef, Object proxy, Method method, Object[] args, long hash) throws Exception;

    /** A remote object was exported in this JVM; {@code stub} is what clients receive. */
    void exported(Object unicastServerRef, Object impl, Object stub);

    /**
     * A connection arrived on a JRMP port of this JVM. Runs on JRMP's connection thread, before JRMP reads anything;
     * when Remora takes the connection it may serve it on this thread and return only when it ends.
     *
     * @param connectionHandler JRMP's {@code TCPTransport$ConnectionHandler} for the socket: set as the thread's
     *     handler during Remora's calls, so {@code RemoteServer.getClientHost()} answers as under JRMP
     * @return the socket JRMP should read (the same, or a replaying wrapper), or null when Remora took it
     */
    Socket accept(Object connectionHandler, Socket socket) throws IOException;

    /**
     * References to remote objects at {@code endpoint} (a {@code sun.rmi.transport.Endpoint}) were unmarshalled in this
     * JVM: a stub arrived, and the JDK's DGC is about to make its first call to that endpoint for them. A router may
     * start opening its own connection there, in the background. Runs on the thread that unmarshalled the stub (the
     * application's, inside its remote call): must not block.
     *
     * @param liveRefs the references ({@code sun.rmi.transport.LiveRef}s)
     */
    default void stubsArrived(Object endpoint, java.util.List<?> liveRefs) {
    }

    /**
     * {@code Remora.async(task)} (the API jar): runs {@code task} on this thread; its first remote call that Remora
     * carries is sent without waiting for its reply, and the future completes with that call's outcome; a task that
     * makes no such call ran synchronously and its future is complete. Never throws once the task has run.
     *
     * @return the task's future, or null when this router does not take tasks (the caller then runs it itself)
     */
    default java.util.concurrent.CompletableFuture<Object> async(java.util.concurrent.Callable<?> task) {
        return null;
    }

    /**
     * The JVM is exiting and the application's shutdown hooks have run: gets this router's threads out of native
     * waits, so the JVM need not wait for them. Must not block.
     *
     * @return how many of Remora's own links it released
     */
    default int exiting() {
        return 0;
    }

    /** Leaves everything to JRMP. */
    CallRouter JRMP = new CallRouter() {
        @Override
        public Object[] invoke(Object unicastRef, Object proxy, Method method, Object[] args, long hash) {
            return null;
        }

        @Override
        public void exported(Object unicastServerRef, Object impl, Object stub) {
        }

        @Override
        public Socket accept(Object connectionHandler, Socket socket) {
            return socket;
        }
    };
}

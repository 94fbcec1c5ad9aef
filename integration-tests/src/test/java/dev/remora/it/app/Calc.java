package dev.remora.it.app;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote interface of the integration tests' application: plain RMI, nothing of Remora. */
public interface Calc extends Remote {
    int add(int a, int b) throws RemoteException;

    Object echo(Object o) throws RemoteException;

    void ping() throws RemoteException;

    /** Throws by {@code kind}: "declared" (AppException), "runtime" (IllegalStateException), "error" (AssertionError). */
    void fail(String kind) throws RemoteException, AppException;

    /** {@code RemoteServer.getClientHost()} as the server sees it during this call. */
    String clientHost() throws RemoteException;

    /** Calls {@code cb.tick(i)} for i in 0..n-1 and returns the sum of the answers. */
    int callback(Callback cb, int n) throws RemoteException;

    /** A remote object exported by the server and handed out by reference. */
    Counter newCounter() throws RemoteException;

    interface Callback extends Remote {
        int tick(int i) throws RemoteException;
    }

    interface Counter extends Remote {
        int increment() throws RemoteException;
    }

    /** A declared application exception. */
    class AppException extends Exception {
        private static final long serialVersionUID = 1L;

        public AppException(String message) {
            super(message);
        }
    }
}

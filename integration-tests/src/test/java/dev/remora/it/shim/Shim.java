package dev.remora.it.shim;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote interface of the rmi-shim tests: plain RMI, nothing of Remora. */
public interface Shim extends Remote {
    int add(int a, int b) throws RemoteException;

    /** Sleeps, then returns ms: a call in flight that the tests kill or time out. */
    int sleep(int ms) throws RemoteException;

    Counter newCounter() throws RemoteException;

    /** Unexports the last counter made by {@link #newCounter}. */
    boolean unexportLast() throws RemoteException;

    /** Throws a RemoteException of the application's own: JRMP wraps it in ServerException. */
    void remoteFailure() throws RemoteException;

    interface Counter extends Remote {
        int increment() throws RemoteException;
    }

    /** A method the server's Shim does not have: its hash is unknown there. */
    interface Missing extends Remote {
        int notThere(int x) throws RemoteException;
    }
}

package dev.remora.it.shim;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote interfaces of the DGC tests: plain RMI, nothing of Remora. */
public interface Dgc extends Remote {
    /** Keeps {@code cb} (a stub of an object the caller exported). */
    void hold(Callback cb) throws RemoteException;

    /** Calls the held callback back. */
    String callHeld(String s) throws RemoteException;

    /** Forgets the held callback and collects garbage, so this JVM's DGC client lets go of it. */
    void drop() throws RemoteException;

    /** Exports a new token (Unreferenced) and returns it: this JVM holds only the implementation. */
    Token newToken() throws RemoteException;

    /** Whether the last token's {@code unreferenced()} ran. */
    boolean tokenUnreferenced() throws RemoteException;

    interface Callback extends Remote {
        String ping(String s) throws RemoteException;
    }

    interface Token extends Remote {
        int value() throws RemoteException;
    }
}

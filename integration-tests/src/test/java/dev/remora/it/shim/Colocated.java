package dev.remora.it.shim;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.ArrayList;

/** The remote interface of the co-located tests (an object called from the JVM that exported it). */
public interface Colocated extends Remote {
    /** Appends to {@code sb} and to {@code list}; says whether list.get(0) is sb. */
    String mutate(ArrayList<StringBuilder> list, StringBuilder sb) throws RemoteException;

    /** The implementation's own object. */
    StringBuilder state() throws RemoteException;

    int add(int a, int b) throws RemoteException;

    /** Throws by kind: declared (AppException), remote, error, runtime. */
    void fail(String kind) throws RemoteException, AppException;

    String clientHost() throws RemoteException;

    /** The context class loader's name during the call. */
    String loader() throws RemoteException;

    /** Whether {@code cb} is a stub, and what it answers. */
    String call(Callback cb) throws RemoteException;

    interface Callback extends Remote {
        String hello() throws RemoteException;
    }

    class AppException extends Exception {
        private static final long serialVersionUID = 1L;

        public AppException(String m) {
            super(m);
        }
    }
}

package remora.it.modular.api;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A remote interface in a package exported to java.rmi only, as jdk.jstatd's {@code RemoteVm}. */
public interface Echo extends Remote {
    String echo(String s) throws RemoteException;

    Sample twice(Sample s) throws RemoteException;

    void fail(String message) throws RemoteException, Refused;
}

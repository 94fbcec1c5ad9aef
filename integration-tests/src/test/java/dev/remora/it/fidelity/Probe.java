package dev.remora.it.fidelity;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;

/** {@link FilterProbe}'s remote interface. */
public interface Probe extends Remote {
    /** The checks the server's filter made while it read {@code arg}. */
    List<String> checks(Object arg) throws RemoteException;
}

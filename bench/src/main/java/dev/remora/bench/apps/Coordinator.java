package dev.remora.bench.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** Rank 0's barrier, bound in the registry as {@code coordinator}. */
public interface Coordinator extends Remote {

    /** Returns once all ranks have called it for this generation. */
    void barrier(int rank) throws RemoteException;
}

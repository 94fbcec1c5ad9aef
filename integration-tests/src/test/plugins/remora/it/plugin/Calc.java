package remora.it.plugin;

import java.rmi.Remote;
import java.rmi.RemoteException;

/** A plugin's remote interface: each plugin's class loader has its own copy of it and of {@link Value}. */
public interface Calc extends Remote {
    Value add(Value a, Value b) throws RemoteException;

    /** A Value times ten for a Value; for anything else, a list of it and a new Value. */
    Object any(Object o) throws RemoteException;

    /** Where this plugin's classes were loaded. */
    String where() throws RemoteException;
}

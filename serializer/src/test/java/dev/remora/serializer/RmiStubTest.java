package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.server.RemoteObjectInvocationHandler;
import java.rmi.server.UnicastRemoteObject;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RMI stubs are proxies whose handler writes its LiveRef through ObjectOutput primitives: they round-trip exactly. */
class RmiStubTest {

    public interface Echo extends Remote {
        String echo(String s) throws RemoteException;
    }

    static final class EchoImpl implements Echo {
        @Override
        public String echo(String s) {
            return "echo:" + s;
        }
    }

    @Test
    void exportedStubRoundTripsAndStillCalls() throws Exception {
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        EchoImpl impl = new EchoImpl();
        Echo stub = (Echo) UnicastRemoteObject.exportObject(impl, 0);
        try {
            assertTrue(Proxy.getInvocationHandler(stub) instanceof RemoteObjectInvocationHandler);
            RoundTrip rt = new RoundTrip();
            Echo back = (Echo) rt.roundTrip(stub);
            Echo jdk = (Echo) RoundTrip.jdk(stub);
            assertEquals(jdk, back);          // RemoteObject.equals compares the refs (ObjID + endpoint)
            assertEquals(stub, back);
            assertEquals(stub.hashCode(), back.hashCode());
            assertEquals("echo:x", back.echo("x"));
        } finally {
            UnicastRemoteObject.unexportObject(impl, true);
        }
    }
}

package remora.it.modular;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import remora.it.modular.api.Echo;
import remora.it.modular.api.Refused;
import remora.it.modular.api.Sample;

/** Exports an {@link Echo} in a registry on the port in args[0]; prints READY; exits at end of input. */
public final class Server implements Echo {
    @Override
    public String echo(String s) {
        return s;
    }

    @Override
    public Sample twice(Sample s) {
        return s.twice();
    }

    @Override
    public void fail(String message) throws Refused {
        throw new Refused(message);
    }

    public static void main(String[] args) throws Exception {
        Server impl = new Server();
        Echo stub = (Echo) UnicastRemoteObject.exportObject(impl, 0);
        Registry registry = LocateRegistry.createRegistry(Integer.parseInt(args[0]));
        registry.rebind("echo", stub);
        System.out.println("READY");
        new BufferedReader(new InputStreamReader(System.in)).readLine();
        UnicastRemoteObject.unexportObject(impl, true);
        UnicastRemoteObject.unexportObject(registry, true);
    }
}

package dev.remora.it.shim;

import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.RemoteServer;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;

/**
 * {@code ColocatedMain <registryPort> <scenario>}: one JVM exports an object and calls it through its stubs (the one
 * exportObject returned and one looked up in the registry). Scenarios: calls (values, copies, exceptions, loader,
 * client host, a callback), unexport. One line per outcome, to compare with and without the agent.
 */
public final class ColocatedMain implements Colocated {
    private final StringBuilder state = new StringBuilder("state");

    public static void main(String[] args) throws Exception {
        int registryPort = Integer.parseInt(args[0]);
        Thread t = Thread.currentThread();
        ClassLoader saved = t.getContextClassLoader();
        ColocatedMain impl = new ColocatedMain();
        Colocated stub;
        t.setContextClassLoader(new URLClassLoader("impl-loader", new URL[0], saved));
        try {
            stub = (Colocated) UnicastRemoteObject.exportObject(impl, 0);
        } finally {
            t.setContextClassLoader(saved);
        }
        ColocatedMain keeper = new ColocatedMain(); // keeps the port serving after impl is unexported
        UnicastRemoteObject.exportObject(keeper, 0);
        if (args[1].equals("unexport")) {
            out("add " + stub.add(1, 2));
            UnicastRemoteObject.unexportObject(impl, true);
            out("after-unexport " + ShimClient.describe(() -> stub.add(1, 2)));
            System.exit(0);
        }
        LocateRegistry.createRegistry(registryPort).rebind("colocated", stub);
        Colocated looked = (Colocated) LocateRegistry.getRegistry("127.0.0.1", registryPort).lookup("colocated");
        for (Colocated c : new Colocated[] {stub, looked}) {
            StringBuilder sb = new StringBuilder("caller");
            ArrayList<StringBuilder> list = new ArrayList<>(Arrays.asList(sb, sb));
            out("mutate " + c.mutate(list, sb) + "; caller still has " + sb + ", " + list.size());
            c.state().append(" changed by the caller");
            out("state " + c.state() + " (impl has " + impl.state + ")");
            out("add " + c.add(40, 2));
            for (String kind : new String[] {"declared", "remote", "error", "runtime"}) {
                out(kind + " " + ShimClient.describe(() -> {
                    c.fail(kind);
                    return null;
                }));
            }
            out("client-host " + c.clientHost());
            out("loader " + c.loader());
            Colocated.Callback cb = () -> "hello from the callback";
            Colocated.Callback cbStub = (Colocated.Callback) UnicastRemoteObject.exportObject(cb, 0);
            out("callback " + ShimClient.describe(() -> c.call(cb))); // not exported, not serializable
            out("callback-stub " + c.call(cbStub));
            UnicastRemoteObject.unexportObject(cb, true);
        }
        int sum = 0;
        for (int i = 0; i < 1000; i++) {
            sum += stub.add(i, 1);
        }
        out("sum " + sum);
        System.exit(0);
    }

    @Override
    public String mutate(ArrayList<StringBuilder> list, StringBuilder sb) {
        boolean same = list.get(0) == sb;
        sb.append("+callee");
        list.add(new StringBuilder("added"));
        return "same=" + same + " " + sb;
    }

    @Override
    public StringBuilder state() {
        return state;
    }

    @Override
    public int add(int a, int b) {
        return a + b;
    }

    @Override
    public void fail(String kind) throws RemoteException, AppException {
        switch (kind) {
            case "declared":
                throw new AppException("declared");
            case "remote":
                throw new RemoteException("the application's own");
            case "error":
                throw new InternalError("boom");
            default:
                throw new IllegalStateException("runtime");
        }
    }

    @Override
    public String clientHost() {
        try {
            return RemoteServer.getClientHost();
        } catch (Exception e) {
            return e.toString();
        }
    }

    @Override
    public String loader() {
        return Thread.currentThread().getContextClassLoader().getName();
    }

    @Override
    public String call(Callback cb) throws RemoteException {
        return (Proxy.isProxyClass(cb.getClass()) ? "a stub: " : "the object itself: ") + cb.hello();
    }

    private static void out(String line) {
        System.out.println(line);
        System.out.flush();
    }
}

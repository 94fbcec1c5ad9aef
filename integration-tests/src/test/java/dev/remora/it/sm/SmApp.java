package dev.remora.it.sm;

import dev.remora.it.app.Hello;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

/**
 * The classic RMI tutorial's shape: {@code SmApp server|client <port> sm|nosm} installs a SecurityManager first
 * ({@code sm}; JDK 17, with {@code -Djava.security.policy}), then serves or calls a remote object three times.
 */
public final class SmApp {
    @SuppressWarnings("removal")
    public static void main(String[] a) throws Exception {
        if (a[2].equals("sm")) {
            System.setSecurityManager(new SecurityManager());
        }
        int port = Integer.parseInt(a[1]);
        if (a[0].equals("server")) {
            Hello.Impl impl = new Hello.Impl();
            Hello stub = (Hello) UnicastRemoteObject.exportObject(impl, 0);
            Registry r = LocateRegistry.createRegistry(port);
            r.rebind("hello", stub);
            System.out.println("READY");
            System.out.flush();
            Thread.currentThread().join();
        } else {
            Hello h = (Hello) LocateRegistry.getRegistry("127.0.0.1", port).lookup("hello");
            for (int i = 0; i < 3; i++) {
                System.out.println(h.hi("x" + i));
            }
        }
    }
}

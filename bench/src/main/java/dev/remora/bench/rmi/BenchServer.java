package dev.remora.bench.rmi;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.rmi.NoSuchObjectException;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.ExportException;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.CountDownLatch;

/**
 * Server main of the collection: creates (or joins) an RMI registry, exports {@link PingServiceImpl} and binds it.
 * With {@code --port 0} it picks a free port itself and reports it on stdout
 * ({@code ready host=... port=... name=...}) and in {@code --ready-file}, which scripts wait for. It exits when
 * a client calls {@code shutdown()} (or when killed).
 */
public final class BenchServer {

    private final Registry registry;
    private final boolean ownRegistry;
    private final PingServiceImpl impl;
    private final String name;
    private final String host;
    private final int port;
    private final CountDownLatch stopped = new CountDownLatch(1);

    private BenchServer(Registry registry, boolean ownRegistry, PingServiceImpl impl, String name, String host,
            int port) {
        this.registry = registry;
        this.ownRegistry = ownRegistry;
        this.impl = impl;
        this.name = name;
        this.host = host;
        this.port = port;
    }

    /** Declares the server's options. */
    public static Options options() {
        return new Options()
                .option("host", "127.0.0.1", "address the server's endpoints advertise and raw sockets bind to")
                .option("port", "1099", "registry port; 0 picks a free one (reported on stdout and --ready-file)")
                .option("name", "remora-bench", "name the service is bound under")
                .option("registry", "auto", "create | join | auto (create, or join one already on the port)")
                .option("export-port", "0", "port the service object is exported on (0: anonymous)")
                .option("ready-file", "", "file to write 'port=N' to once bound (written atomically)")
                .flag("help", "print this help");
    }

    /** Starts a server; {@code shutdown()} from a client closes it and counts down {@link #awaitStop()}. */
    public static BenchServer start(Options o) throws IOException {
        String host = o.get("host");
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", host);
        }
        InetAddress bind = InetAddress.getByName(host);
        String mode = o.get("registry");
        if (!mode.equals("auto") && !mode.equals("create") && !mode.equals("join")) {
            throw new IllegalArgumentException("--registry must be create, join or auto, got '" + mode + "'");
        }
        int wanted = o.getInt("port", 0, 65535);
        int exportPort = o.getInt("export-port", 0, 65535);
        if (wanted == 0 && mode.equals("join")) {
            throw new IllegalArgumentException("--registry join needs the registry's --port, not 0");
        }
        Registry registry = null;
        boolean own = false;
        int port = wanted;
        if (!mode.equals("join")) {
            ExportException last = null;
            for (int attempt = 0; attempt < 20 && registry == null; attempt++) {
                port = wanted != 0 ? wanted : freePort(bind);
                try {
                    registry = LocateRegistry.createRegistry(port);
                    own = true;
                } catch (ExportException e) {
                    last = e;
                    if (wanted != 0) {
                        break;
                    }
                }
            }
            if (registry == null && mode.equals("create")) {
                throw new IOException("cannot create an RMI registry on port " + port + " (in use?): choose another"
                        + " --port, use --port 0 for a free one, or --registry join", last);
            }
        }
        if (registry == null) {
            registry = LocateRegistry.getRegistry(host, port);
        }
        BenchServer[] self = new BenchServer[1];
        PingServiceImpl impl = new PingServiceImpl(bind, () -> self[0].close());
        PingService stub = (PingService) UnicastRemoteObject.exportObject(impl, exportPort);
        String name = o.get("name");
        try {
            registry.rebind(name, stub);
        } catch (RemoteException e) {
            UnicastRemoteObject.unexportObject(impl, true);
            throw new IOException("cannot bind '" + name + "' in the registry at " + host + ":" + port
                    + (own ? "" : " (joined an existing registry: is it on this host and running?)"), e);
        }
        self[0] = new BenchServer(registry, own, impl, name, host, port);
        return self[0];
    }

    private static int freePort(InetAddress bind) throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, bind)) {
            return s.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    public String host() {
        return host;
    }

    /** Unbinds, unexports the service (and the registry when this server created it). Idempotent. */
    public void close() {
        if (stopped.getCount() == 0) {
            return;
        }
        try {
            registry.unbind(name);
        } catch (Exception e) {
            // Already gone, or the registry went away first: nothing left to undo.
        }
        unexport(impl);
        if (ownRegistry) {
            unexport(registry);
        }
        stopped.countDown();
    }

    private static void unexport(java.rmi.Remote r) {
        try {
            UnicastRemoteObject.unexportObject(r, true);
        } catch (NoSuchObjectException e) {
            // Not exported (any more).
        }
    }

    /** Blocks until a client called {@code shutdown()} or {@link #close()} ran. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    public static void main(String[] args) {
        PrintStream err = System.err;
        Options o = options();
        BenchServer server;
        try {
            o.parse(args);
            if (o.flag("help")) {
                System.out.println("java -cp bench/target/classes " + BenchServer.class.getName() + " [options]");
                System.out.print(o.usage());
                return;
            }
            server = start(o);
        } catch (IllegalArgumentException e) {
            err.println("bench-server: " + e.getMessage());
            System.exit(2);
            return;
        } catch (Exception e) {
            err.println("bench-server: " + e);
            if (e.getCause() != null) {
                err.println("bench-server: caused by " + e.getCause());
            }
            System.exit(1);
            return;
        }
        String ready = "ready host=" + server.host() + " port=" + server.port() + " name=" + o.get("name");
        System.out.println(ready);
        System.out.flush();
        err.println("[bench-server] " + ready + " (JDK " + Runtime.version() + ")");
        String readyFile = o.get("ready-file");
        if (!readyFile.isEmpty()) {
            try {
                Path target = Path.of(readyFile);
                Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
                Files.write(tmp, ("port=" + server.port() + "\n").getBytes(StandardCharsets.UTF_8));
                Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                err.println("bench-server: cannot write --ready-file " + readyFile + ": " + e);
                server.close();
                System.exit(1);
            }
        }
        try {
            server.awaitStop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        err.println("[bench-server] shut down by client");
        System.exit(0);
    }
}

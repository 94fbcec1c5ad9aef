package dev.remora.it.conformance;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code ConformanceMain <mode> <port> [suppress]}, one line per observation so that runs with and without the agent
 * compare line by line. Modes: {@code colocated} (exports a {@link Conf} and calls it from the same JVM),
 * {@code server} (exports it, binds it in a registry on {@code port}, prints READY and serves), {@code client} (calls
 * the server's), {@code readtimeout} (sets {@code sun.rmi.transport.tcp.readTimeout} to 2000 in main, as jtreg's
 * ReadTimeoutTest does, exports on {@code port}, prints READY and serves). {@code suppress} sets
 * {@code sun.rmi.server.suppressStackTraces=true} in main, before the first export (as jtreg's SuppressStackTraces).
 */
public final class ConformanceMain {

    private static Conf.Impl impl;

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        int port = Integer.parseInt(args[1]);
        if (args.length > 2 && args[2].equals("suppress")) {
            System.setProperty("sun.rmi.server.suppressStackTraces", "true");
        }
        switch (mode) {
            case "colocated":
                // held strongly, as an RMI program must: JRMP holds an exported object only weakly while no remote
                // client references it (and Remora no longer keeps the last call's object, which hid that)
                impl = new Conf.Impl();
                checks((Conf) UnicastRemoteObject.exportObject(impl, 0));
                System.exit(0);
                break;
            case "server":
                impl = new Conf.Impl();
                Conf stub = (Conf) UnicastRemoteObject.exportObject(impl, 0);
                LocateRegistry.createRegistry(port).rebind("conf", stub);
                ready();
                break;
            case "client":
                // set in main, before JRMP's client reads it (it used to be read at the agent's premain)
                System.setProperty("sun.rmi.transport.tcp.responseTimeout", "1000");
                Conf remote = (Conf) LocateRegistry.getRegistry("127.0.0.1", port).lookup("conf");
                checks(remote);
                out("slow (responseTimeout 1000 ms) " + classes(() -> remote.sleep(3000)));
                out("after slow " + describe(() -> remote.echo("fine")));
                System.exit(0);
                break;
            case "readtimeout":
                System.setProperty("sun.rmi.transport.tcp.readTimeout", "2000");
                impl = new Conf.Impl();
                UnicastRemoteObject.exportObject(impl, port);
                ready();
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
    }

    private static void ready() throws InterruptedException {
        out("READY");
        Thread.currentThread().join();
    }

    interface Call {
        Object call() throws Exception;
    }

    @SuppressWarnings("checkstyle:MethodName")
    private static void __FOO__(Conf c) throws Exception {
        c.ping();
    }

    static void checks(Conf c) {
        // serverStackTrace/ServerStackTrace, SuppressStackTraces
        try {
            __FOO__(c);
            out("ping returned");
        } catch (Exception e) {
            out("ping " + chain(e));
            out("ping trace " + trace(e.getStackTrace()));
        }
        // clientStackTrace/ClientStackTrace
        try {
            c.remote();
            out("remote returned");
        } catch (Exception e) {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            e.printStackTrace(new PrintStream(b, true, StandardCharsets.UTF_8));
            out("remote " + chain(e) + "; printed trace has exceptionReceivedFromServer: "
                    + b.toString(StandardCharsets.UTF_8).contains("exceptionReceivedFromServer"));
            out("remote cause trace has __FOO__ or main: " + hasClientFrames(e.getCause().getStackTrace()));
        }
        // Unmarshal/checkUnmarshalOnStopThread
        out("poison-error " + describe(() -> c.poison(true)));
        out("poison-runtime " + describe(() -> c.poison(false)));
        out("bomb-argument " + describe(() -> {
            c.take(new Conf.Bomb());
            return null;
        }));
        out("unserializable-result " + describe(c::unserializable));
        out("bomb-result " + describe(c::bombResult));
        out("unserializable-exception " + describe(() -> {
            c.unserializableException();
            return null;
        }));
        out("after " + describe(() -> c.echo("fine")));
        // a load-testing tool's remote engine: configured once, then every call must run on the configured thread
        out("engine " + describe(() -> {
            c.configure(50);
            for (int i = 0; i < 20; i++) {
                String wrong = c.check();
                if (wrong != null) {
                    return "call " + i + ": " + wrong;
                }
                if (i % 5 == 4) {
                    Thread.sleep(5);
                }
            }
            return "every call on the configured thread";
        }));
    }

    /** The exception's chain of classes, without messages (where a timeout's message names the transport). */
    static String classes(Call c) {
        try {
            return "returned " + c.call();
        } catch (Throwable e) {
            StringBuilder sb = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                sb.append(t.getClass().getName()).append(" / ");
            }
            return sb.toString();
        }
    }

    private static boolean hasClientFrames(StackTraceElement[] t) {
        for (StackTraceElement e : t) {
            if (e.getMethodName().equals("__FOO__") || e.getMethodName().equals("main")) {
                return true;
            }
        }
        return false;
    }

    /**
     * The trace's shape: how often __BAR__ (server) and __FOO__ (client) appear and in which order, then the client's
     * part from JRMP's exceptionReceivedFromServer frame on (its two StreamRemoteCall frames and UnicastRef.invoke in
     * full, lines included, the rest as
     * class.method down to __FOO__; the stub's proxy class unnamed: an agent's own proxies shift the numbers).
     */
    private static String trace(StackTraceElement[] t) {
        int bar = -1;
        int foo = -1;
        int bars = 0;
        int foos = 0;
        int received = -1;
        for (int i = 0; i < t.length; i++) {
            String m = t[i].getMethodName();
            if (m.equals("__BAR__")) {
                bars++;
                bar = i;
            } else if (m.equals("__FOO__")) {
                foos++;
                foo = foo < 0 ? i : foo;
            } else if (m.equals("exceptionReceivedFromServer") && received < 0) {
                received = i;
            }
        }
        List<String> client = new ArrayList<>();
        for (int i = Math.max(0, received); received >= 0 && i < t.length && i <= foo; i++) {
            client.add(i < received + 3 ? t[i].toString()
                    : t[i].getClassName().replaceAll("^jdk\\.proxy\\d+\\.\\$Proxy\\d+$", "(proxy)") + "."
                    + t[i].getMethodName());
        }
        return "__BAR__ x" + bars + ", __FOO__ x" + foos + ", server frames first: " + (bar < foo)
                + ", exceptionReceivedFromServer after the server's frames: " + (received > bar)
                + ", client part: " + client;
    }

    private static String chain(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" / ");
        }
        return sb.toString();
    }

    static String describe(Call c) {
        try {
            return "returned " + c.call();
        } catch (Throwable e) { // Errors too: what the caller of the stub sees
            return chain(e);
        }
    }

    private static void out(String line) {
        System.out.println(line);
        System.out.flush();
    }
}

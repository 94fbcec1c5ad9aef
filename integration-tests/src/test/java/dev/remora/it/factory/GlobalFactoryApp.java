package dev.remora.it.factory;

import dev.remora.it.app.Hello;
import java.io.BufferedReader;
import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.RMISocketFactory;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An application that sets a global {@code RMISocketFactory} before its first RMI use, as applications do to tunnel,
 * encrypt or set socket options: {@code plain} makes plain {@code Socket}s and counts them, {@code xor} makes sockets
 * that XOR every byte (a stand-in for encryption). Each side prints how many sockets its factory made or accepted.
 * {@code server MODE PORT}: exports a {@link Hello} in a registry, prints READY, stops at end of input.
 * {@code client MODE PORT}: 200 calls.
 */
public final class GlobalFactoryApp {
    private static final AtomicInteger CONNECTS = new AtomicInteger();
    private static final AtomicInteger ACCEPTS = new AtomicInteger();

    private GlobalFactoryApp() {
    }

    /** A socket whose streams XOR each byte with 0x5A. */
    static final class XorSocket extends Socket {
        private InputStream in;
        private OutputStream out;

        XorSocket() {
        }

        XorSocket(String host, int port) throws IOException {
            super(host, port);
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        int b = super.read();
                        return b < 0 ? b : b ^ 0x5A;
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        int n = super.read(b, off, len);
                        for (int i = 0; i < n; i++) {
                            b[off + i] ^= 0x5A;
                        }
                        return n;
                    }
                };
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                OutputStream raw = super.getOutputStream();
                out = new FilterOutputStream(raw) {
                    @Override
                    public void write(int b) throws IOException {
                        raw.write(b ^ 0x5A);
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        byte[] c = new byte[len];
                        for (int i = 0; i < len; i++) {
                            c[i] = (byte) (b[off + i] ^ 0x5A);
                        }
                        raw.write(c, 0, len);
                    }
                };
            }
            return out;
        }
    }

    static final class Factory extends RMISocketFactory {
        private final boolean xor;

        Factory(boolean xor) {
            this.xor = xor;
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            CONNECTS.incrementAndGet();
            return xor ? new XorSocket(host, port) : new Socket(host, port);
        }

        @Override
        public ServerSocket createServerSocket(int port) throws IOException {
            return new ServerSocket(port) {
                @Override
                public Socket accept() throws IOException {
                    Socket s = xor ? new XorSocket() : new Socket();
                    implAccept(s);
                    ACCEPTS.incrementAndGet();
                    return s;
                }
            };
        }
    }

    public static void main(String[] args) throws Exception {
        RMISocketFactory.setSocketFactory(new Factory(args[1].equals("xor")));
        int port = Integer.parseInt(args[2]);
        if (args[0].equals("server")) {
            Hello.Impl impl = new Hello.Impl();
            Registry registry = LocateRegistry.createRegistry(port);
            registry.rebind("hello", UnicastRemoteObject.exportObject(impl, 0));
            System.out.println("READY");
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            System.out.println("server: its factory accepted " + ACCEPTS.get() + " connections");
            UnicastRemoteObject.unexportObject(impl, true);
            UnicastRemoteObject.unexportObject(registry, true);
        } else {
            Hello hello = (Hello) LocateRegistry.getRegistry("127.0.0.1", port).lookup("hello");
            String s = null;
            for (int i = 0; i < 200; i++) {
                s = hello.hi("x" + i);
            }
            System.out.println(s);
            System.out.println("client: its factory made " + CONNECTS.get() + " sockets");
        }
    }
}

package dev.remora.rmi;

import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.transport.fabric.FabricLink;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * What this JVM knows of one server endpoint (a LiveRef's host:port): not asked yet, runs Remora (with the
 * connection all threads share), or plain JRMP (cached: calls go to the JDK).
 *
 * <p>The probe is the first connection: Remora's hello on the JRMP port. A Remora server answers with its own hello;
 * a JRMP server reads six bytes, finds the wrong magic and closes, and the client remembers "vanilla". A server
 * that does neither within the probe timeout (or JRMP's handshake timeout,
 * {@code sun.rmi.transport.tcp.handshakeTimeout}, when shorter) is also taken for vanilla, so a call never hangs on
 * the probe.
 */
final class RemoteEndpoint {
    final String host;
    final int port;
    private final RouterOptions options;
    private final Technology[] technologies;
    private volatile boolean vanilla;
    private volatile ClientConnection connection;
    /** Why one-way calls of a connection that broke were not confirmed: thrown by the next call (once). */
    private volatile IOException unconfirmed;

    RemoteEndpoint(String host, int port, RouterOptions options, Technology[] technologies) {
        this.host = host;
        this.port = port;
        this.options = options;
        this.technologies = technologies;
    }

    boolean isVanilla() {
        return vanilla;
    }

    /**
     * The shared connection, opened (and the endpoint probed) if needed.
     *
     * @return null when the call must go to JRMP: a vanilla endpoint, or no connection could be made (JRMP then
     *     reports that failure exactly as it would without Remora)
     */
    ClientConnection connection() {
        ClientConnection c = connection;
        if (c != null && c.usable()) {
            return c;
        }
        if (vanilla) {
            return null;
        }
        synchronized (this) {
            c = connection;
            if (c != null && c.usable()) {
                return c;
            }
            if (c != null) {
                IOException u = c.takeUnconfirmed();
                if (u != null) {
                    unconfirmed = u;
                }
            }
            connection = null;
            if (vanilla) {
                return null;
            }
            c = open();
            connection = c;
            return c;
        }
    }

    /**
     * Once: why one-way calls sent to this endpoint on a connection that broke were not confirmed, or null. Asked
     * by every call after {@link #connection}, which notices the broken connection.
     */
    IOException takeUnconfirmed() {
        if (unconfirmed == null) {
            return null;
        }
        synchronized (this) {
            IOException u = unconfirmed;
            unconfirmed = null;
            return u;
        }
    }

    private ClientConnection open() {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), options.connectTimeoutMillis);
        } catch (IOException e) {
            close(s);
            return null; // unreachable: JRMP makes the call and reports it in its own words
        }
        // The hello is this connection's handshake: as JRMP's client, wait no longer than its handshake timeout.
        int handshake = options.handshakeTimeout();
        int wait = handshake > 0 ? Math.min(options.probeTimeoutMillis, handshake) : options.probeTimeoutMillis;
        try {
            s.setSoTimeout(wait);
            int offered = 0;
            for (Technology t : technologies) {
                if (t.worthOffering(s) && t.available()) {
                    offered |= t.bit();
                }
            }
            FrameBuffer hello = new FrameBuffer(Frame.HELLO_LENGTH);
            hello.writeInt(Frame.MAGIC);
            hello.writeShort(Frame.VERSION);
            hello.writeByte(offered);
            hello.writeByte(0);
            s.getOutputStream().write(hello.array(), 0, hello.length());
            byte[] answer = new byte[Frame.HELLO_LENGTH];
            InputStream in = s.getInputStream();
            new DataInputStream(in).readFully(answer);
            int chosen = answer[6];
            if (FrameBuffer.getInt(answer, 0) != Frame.MAGIC) {
                return vanilla(s, "answered the hello with something else");
            }
            short version = FrameBuffer.getShort(answer, 4);
            if (version != Frame.VERSION) {
                return vanilla(s, "speaks Remora protocol version " + version + ", this JVM version " + Frame.VERSION
                        + " (different Remora releases); run the same Remora on both sides to leave JRMP");
            }
            for (Technology t : technologies) {
                if (t.bit() == chosen) {
                    Link link = t.open(s, true);
                    options.listener.linked(link instanceof FabricLink ? "fabric" : "socket", "Remora connection to "
                            + link.peer() + " over " + (link instanceof FabricLink ? "fabric ("
                            + ((FabricLink) link).provider() + ")" : "its socket transport"));
                    return new ClientConnection(link, options);
                }
            }
            return vanilla(s, "chose a technology this JVM does not have (" + chosen + ")");
        } catch (SocketTimeoutException e) {
            return vanilla(s, "did not answer Remora's hello within " + wait + " ms");
        } catch (IOException e) {
            return vanilla(s, null); // closed on the hello: a JRMP server
        }
    }

    private ClientConnection vanilla(Socket s, String oddity) {
        close(s);
        vanilla = true;
        if (oddity != null) {
            options.listener.note("probe:" + host + ":" + port, "the server at " + host + ":" + port + " " + oddity
                    + "; its calls stay on JRMP");
        }
        return null;
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public String toString() {
        return host + ":" + port + (vanilla ? " (JRMP)" : "");
    }
}

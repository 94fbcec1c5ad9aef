package dev.remora.rmi.transport.fabric;

import dev.remora.fabric.Fabric;
import dev.remora.fabric.FabricEndpoint;
import dev.remora.fabric.FabricOptions;
import dev.remora.rmi.RouterListener;
import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.wire.Frame;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Remora's frames over libfabric (the "technology object" of "KaRMI" for a user-level network): chosen in the hello
 * when both JVMs have the native library, else the socket technology is.
 *
 * <p>{@link #open} runs a short handshake over the negotiated TCP connection: the client lists the providers it
 * would use in order of preference; the server takes the first it also has, opens an endpoint and answers with the
 * provider and its fabric address; the client opens the same provider, inserts the server and sends its own
 * address; the server inserts it and acknowledges. Over shm each side also offers its send ring's name in /dev/shm
 * (remora.fabric.shared), maps the other's and says whether it did, so that messages above the inject size are read
 * where the sender staged them instead of by libfabric's CMA copy (see FabricEndpoint#createSharedRing); a ring that
 * will not map costs a log line and that copy, nothing else. Last, each side sends the other one probe message over
 * the new endpoints and waits for the other's ({@link #probe}). At any step either side may answer "socket" instead
 * (a provider that will not open, an address that will not insert): both then run the socket technology over that
 * same TCP connection, so a broken libfabric costs a log line, never a call. The TCP connection then stays open,
 * idle, as the liveness signal of the {@link FabricLink}.
 *
 * <p>Provider choice ({@code remora.fabric.provider=auto}): {@code shm} when both ends are on one host, else
 * {@code verbs;ofi_rxm}, {@code efa}, {@code tcp;ofi_rxm}, the first both have. "One host" is judged from the TCP
 * connection on each side: the remote address is a loopback address or equals the local one. That is exact for
 * loopback and for a host talking to its own address, and it errs on the safe side (tcp) when two hosts' addresses
 * differ; two containers sharing an address but not /dev/shm would wrongly pick shm, and would then fail the
 * handshake's insert and fall back to socket. A forced provider ("shm", "tcp", "verbs", "efa" or a full name such as
 * "udp;ofi_rxd") is the only candidate offered.
 *
 * <p>One endpoint per connection (not one per JVM with peer handles): each connection then has its own receive
 * queue, which matches the shim's one-reader-per-connection model (server thread, client leader/follower) without
 * demultiplexing by source, and closing a connection's endpoint wakes exactly its waiters. The cost is one endpoint
 * (two 256 KiB receive slots) per peer JVM, which Remora has few of.
 */
public final class FabricTechnology implements Technology {
    private static final int MAGIC = 0x524d4643; // "RMFC": with the probe messages (an "RMFB" peer has none)
    private static final byte OK = 0;
    private static final byte USE_SOCKET = 1;
    /** What each side sends the other over the new endpoints at the end of the handshake ({@link #probe}). */
    private static final byte[] PROBE = {'R', 'M', 'P', 'R', 'O', 'B', 'E', '1'};
    /** How long a probe message may take to leave and to arrive (at most the handshake timeout). */
    static final int PROBE_WAIT_MILLIS = 2000;
    /** Remote providers in order of preference, as {@link Fabric#providers()} names them. */
    private static final String[] REMOTE = {"verbs;ofi_rxm", "efa", "tcp;ofi_rxm"};
    /**
     * Providers Remora's own socket transport outruns (measured between two network namespaces joined by veth, see
     * docs/transports.md): under remora.transport=auto a client does not offer them, so two hosts that share
     * nothing better use the socket transport; remora.transport=fabric still uses them.
     */
    static final List<String> BEHIND_SOCKET = List.of("tcp;ofi_rxm");

    private final Settings settings;
    private final Technology fallback;
    private final FabricOptions fabricOptions;
    private volatile Boolean available;
    /** Tests: this side sends no probe message, as when libfabric cannot reach the peer's region. */
    boolean sendNoProbe;
    private final java.util.concurrent.atomic.AtomicBoolean prewarming = new java.util.concurrent.atomic.AtomicBoolean();
    /** Hosts whose connections were told why they get no libfabric offer (at remora.log=debug). */
    private final java.util.Set<String> toldAbout = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Tests: judge every peer to be on another host (two hosts simulated over loopback). */
    private boolean hostsApart;

    /** Everything the technology needs, as plain values (the agent maps the remora.* properties onto them). */
    public static final class Settings {
        final boolean requested;
        final boolean nativeEnabled;
        final String provider;
        /** The endpoints' options as the agent built them from remora.fabric.* (spin, adaptive spin, send ring). */
        final FabricOptions endpoint;
        final long sleepNanos;
        final int maxFrame;
        final int handshakeTimeoutMillis;
        final RouterListener listener;
        boolean sharedRings = true;

        /**
         * @param requested remora.transport=fabric (a fallback is then a warning) rather than auto
         * @param nativeEnabled remora.native: false = unavailable without loading anything
         * @param provider remora.fabric.provider: "auto" or a provider
         * @param endpoint the endpoints' options (remora.fabric.spin, .spin.max, .ring), handed down as built
         * @param sleepNanos remora.fabric.sleep: idle time before a receiver asks its peer to ring and sleeps; 0 never
         * @param maxFrame largest frame accepted from a peer
         * @param handshakeTimeoutMillis how long each handshake read may wait
         * @param listener where fallbacks and debug lines go
         */
        public Settings(boolean requested, boolean nativeEnabled, String provider, FabricOptions endpoint,
                long sleepNanos, int maxFrame, int handshakeTimeoutMillis, RouterListener listener) {
            this.endpoint = endpoint == null ? FabricOptions.defaults() : endpoint;
            this.sleepNanos = sleepNanos;
            this.requested = requested;
            this.nativeEnabled = nativeEnabled;
            this.provider = provider == null || provider.isBlank() ? "auto" : provider.trim();
            this.maxFrame = maxFrame;
            this.handshakeTimeoutMillis = handshakeTimeoutMillis;
            this.listener = listener == null ? RouterListener.NONE : listener;
        }

        /** remora.fabric.shared (default true): over shm, offer the peer this side's send ring to map. */
        public Settings withSharedRings(boolean shared) {
            this.sharedRings = shared;
            return this;
        }
    }

    /**
     * @param fallback the technology both sides switch to over the same connection when the fabric handshake fails
     *     (the socket technology)
     */
    public FabricTechnology(Settings settings, Technology fallback) {
        this.settings = settings;
        this.fallback = fallback;
        this.fabricOptions = settings.endpoint;
    }

    @Override
    public String name() {
        return "fabric";
    }

    @Override
    public int bit() {
        return Frame.TECH_FABRIC;
    }

    /**
     * Starts {@link #available()} on a daemon thread: libfabric's own start-up takes 0.2-0.3 s here (it calibrates a
     * clock and reads /proc/kallsyms), which a server's first connection and a client's first call would otherwise
     * wait for, on each side in turn. The router calls it when it is made (a server's first export, a client's first
     * remote call, a registry lookup included).
     */
    @Override
    public boolean ready() {
        return available != null;
    }

    @Override
    public void prewarm() {
        if (available != null || !settings.nativeEnabled || prewarming.getAndSet(true)) {
            return;
        }
        try {
            SystemThreads.newThread(this::available, "remora-fabric-probe", true).start();
        } catch (RuntimeException | Error e) {
            // no thread to be had: the first connection probes instead
        }
    }

    /** Loads the native library on the first call (never at agent install); the answer is then cached. */
    @Override
    public int exiting() {
        return FabricLink.releaseAllForExit();
    }

    @Override
    public boolean available() {
        Boolean a = available;
        if (a == null) {
            synchronized (this) {
                a = available;
                if (a == null) {
                    available = a = probe();
                }
            }
        }
        return a;
    }

    private boolean probe() {
        if (!settings.nativeEnabled) {
            if (settings.requested) {
                settings.listener.fallback("fabric-unavailable", "remora.transport=fabric but remora.native=false:"
                        + " Remora uses its socket transport (set remora.native=true to load libfabric)");
            } else {
                settings.listener.debug("remora.native=false: the fabric transport is not offered");
            }
            return false;
        }
        Throwable cause;
        try {
            if (Fabric.isAvailable()) {
                settings.listener.debug("fabric transport available: libfabric " + Fabric.libfabricVersion()
                        + ", providers " + Fabric.providers());
                List<String> removed = Fabric.removeRegionsOfDeadProcesses();
                if (!removed.isEmpty()) {
                    settings.listener.debug("removed from /dev/shm what processes of this user that are gone left"
                            + " there (libfabric shm regions, Remora rings): " + removed);
                }
                return true;
            }
            cause = Fabric.unavailabilityCause();
        } catch (Throwable t) { // a broken library must never take the host down
            cause = t;
        }
        settings.listener.fallback("fabric-unavailable", (settings.requested ? "remora.transport=fabric, but " : "")
                + "the fabric transport is unavailable (" + (cause == null ? "no reason given" : cause.getMessage())
                + "); Remora uses its socket transport" + (settings.requested ? "" : " (remora.transport=socket"
                + " silences this)"));
        return false;
    }

    @Override
    public Link open(Socket socket, boolean client) throws IOException {
        int saved = socket.getSoTimeout();
        socket.setSoTimeout(settings.handshakeTimeoutMillis);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        // each message of the handshake ends with a flush: one write (one segment, TCP_NODELAY) per message, not one
        // per field
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1024));
        FabricLink link = client ? clientHandshake(socket, in, out) : serverHandshake(socket, in, out);
        if (link == null) {
            socket.setSoTimeout(saved);
            return fallback.open(socket, client);
        }
        link.start();
        settings.listener.debug("fabric link to " + link.peer() + " over " + link.provider()
                + (link.sharedRings() ? " with shared rings" : ""));
        return link;
    }

    /**
     * Under {@code remora.transport=auto} with the provider left to Remora, a peer on another host is offered libfabric
     * only when this machine has an RDMA device: across hosts only verbs and efa beat Remora's socket transport
     * ({@link #BEHIND_SOCKET}), and both need one. Without, the client's hello leaves fabric out at once instead of
     * waiting for libfabric's probe (0.3-0.8 s of a JVM's first call to another host here) to learn that.
     */
    @Override
    public boolean worthOffering(Socket socket) {
        if (settings.requested || !"auto".equals(settings.provider) || (!hostsApart && Technology.sameHost(socket))) {
            return true;
        }
        if (rdmaDevices(INFINIBAND)) {
            return true;
        }
        String host = socket.getInetAddress().getHostAddress();
        if (toldAbout.add(host)) { // once per host, not per connection
            settings.listener.debug("socket transport to " + host + ": another host, and no RDMA device here ("
                    + INFINIBAND + "), so no libfabric provider would beat the socket transport (docs/transports.md)");
        }
        return false;
    }

    /** Where Linux lists RDMA devices (InfiniBand, RoCE and iWARP NICs, EFA): verbs and efa need one. */
    static final Path INFINIBAND = Path.of("/sys/class/infiniband");

    /** Whether {@code dir} lists at least one device. */
    static boolean rdmaDevices(Path dir) {
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            return ds.iterator().hasNext();
        } catch (IOException | RuntimeException e) {
            return false; // no such class: no RDMA stack, no device
        }
    }

    /** The client proposes; returns null when both agreed on the socket technology instead. */
    private FabricLink clientHandshake(Socket socket, DataInputStream in, DataOutputStream out) throws IOException {
        List<String> candidates = candidates(!hostsApart && Technology.sameHost(socket));
        String preferSocket = null;
        if (!settings.requested && "auto".equals(settings.provider) && !candidates.isEmpty()
                && BEHIND_SOCKET.containsAll(candidates)) {
            // remora.transport=auto: only providers the socket technology outruns are shared with this peer
            preferSocket = "Remora's socket transport is faster than libfabric's " + candidates + " between two"
                    + " hosts (docs/transports.md; remora.transport=fabric uses it anyway)";
            candidates = List.of();
        }
        out.writeInt(MAGIC);
        out.writeShort(candidates.size());
        for (String c : candidates) {
            out.writeUTF(c);
        }
        out.flush();
        if (in.readInt() != MAGIC) {
            throw new IOException("the peer broke the fabric handshake (wrong magic)");
        }
        if (in.readByte() != OK) {
            String why = in.readUTF();
            if (preferSocket != null) {
                settings.listener.debug("socket transport to " + socket.getInetAddress().getHostAddress()
                        + ": " + preferSocket);
            } else {
                fellBack(socket, "the server " + why);
            }
            return null;
        }
        String provider = in.readUTF();
        byte[] serverAddress = readBytes(in);
        String serverRing = in.readUTF();
        FabricEndpoint ep;
        long peer;
        try {
            ep = FabricEndpoint.open(provider, fabricOptions);
        } catch (IOException | RuntimeException | Error e) {
            refuse(out, "could not open a " + provider + " endpoint: " + e.getMessage());
            fellBack(socket, "this JVM could not open a " + provider + " endpoint (" + e.getMessage() + ")");
            return null;
        }
        try {
            peer = ep.insertPeer(serverAddress);
        } catch (IOException | RuntimeException e) {
            ep.close();
            refuse(out, "could not insert the server's " + provider + " address: " + e.getMessage());
            fellBack(socket, "this JVM could not insert the server's " + provider + " address (" + e.getMessage()
                    + ")");
            return null;
        }
        try {
            boolean mapped = mapRing(ep, serverRing, socket);
            out.writeInt(MAGIC);
            out.writeByte(OK);
            writeBytes(out, ep.address());
            out.writeUTF(offerRing(ep, socket));
            out.writeBoolean(mapped);
            out.flush();
            if (in.readByte() != OK) {
                ep.close();
                fellBack(socket, "the server " + in.readUTF());
                return null;
            }
            ep.enableSharedRing(in.readBoolean());
            if (!probe(socket, in, out, ep, peer)) {
                ep.close();
                return null;
            }
            return new FabricLink(socket, ep, peer, settings.maxFrame, settings.sleepNanos, settings.listener);
        } catch (IOException | RuntimeException e) {
            ep.close();
            throw e;
        }
    }

    /** The server answers; returns null when both agreed on the socket technology instead. */
    private FabricLink serverHandshake(Socket socket, DataInputStream in, DataOutputStream out) throws IOException {
        if (in.readInt() != MAGIC) {
            throw new IOException("the peer broke the fabric handshake (wrong magic)");
        }
        int n = in.readUnsignedShort();
        List<String> offered = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            offered.add(in.readUTF());
        }
        List<String> mine = candidates(!hostsApart && Technology.sameHost(socket));
        String provider = null;
        for (String c : offered) {
            if (mine.contains(c)) {
                provider = c;
                break;
            }
        }
        if (provider == null) {
            if (offered.isEmpty()) { // the client chose the socket technology for this peer and says why
                refuse(out, "agrees: no fabric provider offered");
                settings.listener.debug("socket transport to " + socket.getInetAddress().getHostAddress()
                        + ": the client offered no fabric provider (its remora.transport=auto prefers the socket"
                        + " transport between two hosts without shm, verbs or efa)");
                return null;
            }
            String why = "has no fabric provider in common (client offered " + offered + ", server has " + mine + ")";
            refuse(out, why);
            fellBack(socket, "the server " + why);
            return null;
        }
        FabricEndpoint ep;
        try {
            ep = FabricEndpoint.open(provider, fabricOptions);
        } catch (IOException | RuntimeException | Error e) {
            String why = "could not open a " + provider + " endpoint: " + e.getMessage();
            refuse(out, why);
            fellBack(socket, "the server " + why);
            return null;
        }
        try {
            out.writeInt(MAGIC);
            out.writeByte(OK);
            out.writeUTF(provider);
            writeBytes(out, ep.address());
            out.writeUTF(offerRing(ep, socket));
            out.flush();
            if (in.readInt() != MAGIC) {
                throw new IOException("the peer broke the fabric handshake (wrong magic)");
            }
            if (in.readByte() != OK) {
                ep.close();
                fellBack(socket, "the client " + in.readUTF());
                return null;
            }
            byte[] clientAddress = readBytes(in);
            String clientRing = in.readUTF();
            boolean clientMapped = in.readBoolean();
            long peer;
            try {
                peer = ep.insertPeer(clientAddress);
            } catch (IOException | RuntimeException e) {
                ep.close();
                String why = "could not insert the client's " + provider + " address: " + e.getMessage();
                refuse(out, why);
                fellBack(socket, "the server " + why);
                return null;
            }
            boolean mapped = mapRing(ep, clientRing, socket);
            ep.enableSharedRing(clientMapped);
            out.writeByte(OK);
            out.writeBoolean(mapped);
            out.flush();
            if (!probe(socket, in, out, ep, peer)) {
                ep.close();
                return null;
            }
            return new FabricLink(socket, ep, peer, settings.maxFrame, settings.sleepNanos, settings.listener);
        } catch (IOException | RuntimeException e) {
            ep.close();
            throw e;
        }
    }

    /**
     * This side's shared ring for the peer to map (shm, remora.fabric.shared), or "" for none: its messages then go
     * by libfabric's CMA copy, as they do for a peer that does not map it.
     */
    private String offerRing(FabricEndpoint ep, Socket socket) {
        if (!settings.sharedRings) {
            return "";
        }
        try {
            String name = ep.createSharedRing();
            return name == null ? "" : name; // not shm, or remora.fabric.ring=0: nothing to share or warn about
        } catch (IOException | RuntimeException e) {
            noRing(socket, "this JVM could not make its shared ring (" + e.getMessage() + ")");
            return "";
        }
    }

    /** Maps the peer's shared ring (name "" = none offered); false if it is not mapped. */
    private boolean mapRing(FabricEndpoint ep, String name, Socket socket) {
        if (name.isEmpty() || !settings.sharedRings) {
            return false;
        }
        try {
            ep.attachSharedRing(name);
            return true;
        } catch (IOException | RuntimeException e) {
            noRing(socket, "this JVM could not map the peer's shared ring (" + e.getMessage() + ")");
            return false;
        }
    }

    /**
     * The handshake's last step, on both sides: each sends the other one small message over the new endpoints, waits
     * for the other's, and tells it over the TCP connection whether both went well; the link is used only if they did
     * on both sides, else both run the socket technology over this connection (returns false, said once). Why: the
     * shm provider maps a peer's region (/dev/shm/PID:UID:N) only at the first send to it. A region whose name was
     * gone from /dev/shm by then (1 in 15-40 runs of an application whose JVMs were both alive: the provider's own
     * SIGSEGV handler had removed it, which the native rf_open now prevents, see RF_GONE_RETRIES in remora_fabric.c)
     * made every send fail with EAGAIN for the whole send timeout (30 s), and the call was lost; sent at once after
     * the handshake, such a first message crashed libfabric 1.17 (SIGSEGV, 2 in 40 runs); so the native insert
     * refuses a peer whose region is gone, which each side's handshake answers with "socket". Once both sides have
     * sent, the regions are mapped for good, whatever becomes of their names.
     */
    private boolean probe(Socket socket, DataInputStream in, DataOutputStream out, FabricEndpoint ep, long peer)
            throws IOException {
        int waitMillis = Math.min(PROBE_WAIT_MILLIS, Math.max(1, settings.handshakeTimeoutMillis));
        long wait = TimeUnit.MILLISECONDS.toNanos(waitMillis);
        String failed = null;
        try {
            if (!sendNoProbe) {
                ep.send(peer, ByteBuffer.wrap(PROBE), wait);
            }
            int n = ep.receive(wait);
            if (n == FabricEndpoint.TIMEOUT) {
                failed = "the peer's probe message did not arrive over " + ep.provider() + " within " + waitMillis
                        + " ms";
            } else if (!isProbe(ep.received(), n)) {
                failed = "the peer's probe message over " + ep.provider() + " was not Remora's (" + n + " bytes)";
            }
        } catch (IOException e) {
            failed = "a probe message over " + ep.provider() + " failed: " + e.getMessage();
        }
        out.writeByte(failed == null ? OK : USE_SOCKET);
        out.flush();
        boolean theirs = in.readByte() == OK;
        if (failed == null && !theirs) {
            failed = "the peer's end of the probe over " + ep.provider() + " failed (its log says why)";
        }
        if (failed != null) {
            fellBack(socket, failed);
            return false;
        }
        return true;
    }

    private static boolean isProbe(ByteBuffer m, int n) {
        if (n != PROBE.length) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            if (m.get(i) != PROBE[i]) {
                return false;
            }
        }
        return true;
    }

    private void noRing(Socket socket, String why) {
        String peer = socket.getInetAddress().getHostAddress();
        settings.listener.fallback("fabric-shared:" + peer, "fabric link with " + peer + " without a shared ring: "
                + why + "; its messages go by libfabric's CMA copy (remora.fabric.shared=false silences this)");
    }

    private void fellBack(Socket socket, String why) {
        String peer = socket.getInetAddress().getHostAddress();
        settings.listener.fallback("fabric-handshake:" + peer, "no fabric link with " + peer + ": " + why
                + "; this connection uses Remora's socket transport");
    }

    private static void refuse(DataOutputStream out, String why) throws IOException {
        out.writeInt(MAGIC);
        out.writeByte(USE_SOCKET);
        out.writeUTF(why.length() > 1000 ? why.substring(0, 1000) : why);
        out.flush();
    }

    private static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeShort(b.length);
        out.write(b);
    }

    private static byte[] readBytes(DataInputStream in) throws IOException {
        byte[] b = new byte[in.readUnsignedShort()];
        in.readFully(b);
        return b;
    }

    /** Tests: every peer counts as on another host. */
    FabricTechnology hostsApart() {
        hostsApart = true;
        return this;
    }

    /** Providers this JVM would use for a peer, best first. */
    List<String> candidates(boolean sameHost) {
        List<String> have = Fabric.providers();
        List<String> out = new ArrayList<>();
        if (!"auto".equals(settings.provider)) {
            String p = fullName(settings.provider);
            if (have.contains(p)) {
                out.add(p);
            } else {
                settings.listener.fallback("fabric-provider:" + p, "remora.fabric.provider=" + settings.provider
                        + ": libfabric here has no RDM provider " + p + " (it has " + have + "); use one of those or"
                        + " auto");
            }
            return out;
        }
        if (sameHost && have.contains("shm")) {
            out.add("shm");
        }
        for (String r : REMOTE) {
            if (have.contains(r)) {
                out.add(r);
            }
        }
        return out;
    }

    /** "tcp" -> "tcp;ofi_rxm", "verbs" -> "verbs;ofi_rxm"; other names as given. */
    static String fullName(String provider) {
        switch (provider) {
            case "tcp":
                return "tcp;ofi_rxm";
            case "verbs":
                return "verbs;ofi_rxm";
            default:
                return provider;
        }
    }

}

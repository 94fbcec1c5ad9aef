package dev.remora.agent.config;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Every {@code remora.*} system property, declared once: name, default, allowed values, description. The README's
 * property table is generated from these declarations ({@link #markdownTable()}) and a test fails when it is stale.
 *
 * <p>An allowed value may be declared but not built yet (a capability a later release adds): such a value is
 * accepted by nobody; asking for it gets a message that says so, as for any bad value.
 */
public enum Property {
    ENABLED("remora.enabled", "true", values("true", "false"),
            "Kill switch for the whole agent: false installs nothing and leaves the JVM on plain RMI."),
    SERIALIZER("remora.serializer", "fast", values("fast", "jdk"),
            "How arguments and results are marshalled on Remora's protocol: fast = generated field-copy serializers"
                    + " with a per-connection type cache, jdk = JDK serialization inside Remora frames."),
    TRANSPORT("remora.transport", "auto", values("auto", "socket", "fabric", "jrmp"),
            "Where calls travel: auto = best shared technology per endpoint, fabric = libfabric (JNI; if either"
                    + " side lacks it: one warning, socket),"
                    + " socket = Remora's protocol on a Java socket, jrmp = plain JRMP (hooks observe only)."),
    FABRIC_PROVIDER("remora.fabric.provider", "auto", free("auto, or a libfabric provider name: shm, tcp, verbs, efa"),
            "libfabric provider; auto = shm on one host, else tcp;ofi_rxm, verbs or efa where both peers have it."),
    FABRIC_SPIN("remora.fabric.spin", "20000", integer(0, Integer.MAX_VALUE),
            "Nanoseconds a fabric receiver polls (yielding the CPU) before it sleeps: on the completion queue's fd"
                    + " where the provider has one (tcp), else (shm) blocked until the peer's next frame with"
                    + " remora.fabric.shared, or in naps up to 1 ms without. No polling while other runnable threads"
                    + " fill every CPU (the application computing), nor for a while after a yield lost the CPU for"
                    + " 500 us."),
    FABRIC_SPIN_MAX("remora.fabric.spin.max", "200000", integer(0, Integer.MAX_VALUE),
            "Nanoseconds a fabric wait may spin at most when it adapts: twice what such waits lately lasted, at least"
                    + " remora.fabric.spin, so a peer that answers a little after remora.fabric.spin does not cost a"
                    + " sleep and wake-up (30-60 us on a VM). At or below remora.fabric.spin = no adaptation."),
    FABRIC_RING("remora.fabric.ring", "4194304", integer(0, Integer.MAX_VALUE),
            "Bytes of each fabric endpoint's send ring over shm: messages above the inject size are staged one after"
                    + " another in it, not always in the buffer the peer's CMA copy just read (taking that back from the"
                    + " peer CPU's cache made a 100 KB send 3-4 times slower); those up to 256 KB complete behind the"
                    + " sender, who need not wait for the peer to take them; with remora.fabric.shared the peer maps it."
                    + " 0 = one staging buffer, every send waits, no shared ring."),
    FABRIC_SHARED("remora.fabric.shared", "true", values("true", "false"),
            "Over shm, each fabric endpoint's send ring (remora.fabric.ring) lives in /dev/shm and the peer maps"
                    + " it: a message above the inject size and up to a quarter of the ring is read where the sender"
                    + " staged it, and only a 16-byte descriptor goes through libfabric, not the message by the"
                    + " kernel's CMA copy (echo of a byte[100000] in split placement: 17-21 us instead of 36-39 here)."
                    + " A receiver that stops spinning then blocks on a futex in the ring's header, which the peer's"
                    + " next frame wakes. false = libfabric moves every message, and such a receiver naps."),
    FABRIC_UPGRADE("remora.fabric.upgrade", "true", values("true", "always", "false"),
            "With remora.transport=auto: a JVM loads libfabric (about 0.3 s and 0.1-0.2 s of CPU here) only once a"
                    + " connection has carried remora.fabric.upgrade.after calls; until then, and while it loads, calls"
                    + " go over Remora's socket transport, then the connection moves to fabric (not one whose server"
                    + " declared one-way methods: their order would not hold across two connections). true = only a"
                    + " connection"
                    + " most of whose calls came back to back: made less than 10 us after the same thread's previous"
                    + " call to that server returned, that call having taken less than 100 us, or made while serving"
                    + " a call (a callback). An application that computes between its calls, or whose calls take"
                    + " long, stays on sockets, where it ran as fast or faster here and a move would make the JIT"
                    + " compile the call path again; decided at that many calls, then at twice, four and eight times"
                    + " as many. always = whatever the pace; false = libfabric loads when the first RMI object is used"
                    + " and every connection waits for it."),
    FABRIC_UPGRADE_AFTER("remora.fabric.upgrade.after", "65536", integer(1, Integer.MAX_VALUE),
            "Calls a connection carries over sockets before remora.fabric.upgrade first decides its move. The move"
                    + " costs a JVM pair about 0.5 s here (libfabric's start in both JVMs, which also holds up a JVM's"
                    + " exit while it runs, then the fabric link and a second compilation of the call path), which a"
                    + " run needs many more calls to win back (docs/startup.md)."),
    FABRIC_SLEEP("remora.fabric.sleep", "1000000", integer(0, Integer.MAX_VALUE),
            "Nanoseconds a fabric receiver naps idle (shm without remora.fabric.shared, which has no wait fd; with"
                    + " shared rings it blocks until the peer's next frame wakes it) before it asks its peer, on the"
                    + " link's TCP connection, to ring before the next frame, and sleeps until then: an idle link costs"
                    + " no CPU. 0 = nap on (up to 1 ms, about 1.5 % of a CPU per idle link)."),
    SOCKET_SPIN("remora.socket.spin", "20000", integer(0, Integer.MAX_VALUE),
            "Nanoseconds a socket receiver polls for bytes (yielding the CPU) before it blocks in read; 0 = block at"
                    + " once, as JRMP does. No polling while other runnable threads fill every CPU (the application"
                    + " computing)."),
    SOCKET_SPIN_MAX("remora.socket.spin.max", "0", integer(0, Integer.MAX_VALUE),
            "Nanoseconds a socket receiver may poll at most when it adapts: twice what its link's waits lately"
                    + " lasted, at least remora.socket.spin (waits longer than this count as 0, so an idle link polls"
                    + " remora.socket.spin). 200000 shortens the communication-heavy phases of applications whose"
                    + " calls come in lockstep, but costs CPU in ones that mostly compute (docs/waiting.md). At or"
                    + " below remora.socket.spin (the default) = no adaptation; remora.socket.spin=0 blocks at once"
                    + " whatever this says."),
    SOCKET_UNIX("remora.socket.unix", "true", values("true", "false"),
            "Between two JVMs of one host, the socket transport runs over a Unix domain socket instead of TCP (a"
                    + " round trip 3-6 us cheaper here): the server binds it in java.io.tmpdir/remora-USER (mode 700)."
                    + " A peer that cannot connect to it (another file system, a container) stays on TCP, said once."
                    + " false = TCP always."),
    NATIVE("remora.native", "true", values("true", "false"),
            "Kill switch for native code: false never loads libremora_fabric (the socket transport is used)."),
    SERIALIZER_SPARES("remora.serializer.spares", "16777216", integer(0, Integer.MAX_VALUE),
            "Bytes of arrays the fast serializer may make ahead, JVM-wide (at most 1/32 of the heap): a connection"
                    + " whose last two messages carried the same primitive arrays of 16 KB or more makes them for"
                    + " the next one while its thread waits (a new array in cold memory cost 5.5-6.5 us per 100 KB,"
                    + " one made ahead 1.8 us to fill). 0 = make every array when it is read."),
    SERIALIZER_UNSAFE("remora.serializer.unsafe", "true", values("true", "false"),
            "Fast serializer's field access: true = java.base exports jdk.internal.misc to Remora and generated"
                    + " serializers copy fields at their offsets with its Unsafe, as the JDK's own serialization does"
                    + " (no method handle per field: each one a JVM had not compiled yet spun a class after 127"
                    + " calls); false = method handles. The same export lets the transports' shared count of"
                    + " spinning waiters (/dev/shm) use that Unsafe too, instead of a var handle, and the exit hook"
                    + " (remora.exit.fast) read RMI's transports at their offsets instead of by reflection."),
    SERIALIZER_CODEGEN_AFTER("remora.serializer.codegen.after", "1000", integer(0, Integer.MAX_VALUE),
            "With remora.serializer.unsafe: objects of a class (written and read) that a loop over its fields"
                    + " copies before its own serializer is generated. Generating one costs a fresh JVM milliseconds"
                    + " (and ASM's loading before the first), which a class that crosses the wire a few times never"
                    + " earns back. 0 = generate at a class's first use."),
    PRELOAD("remora.preload", "true", values("true", "false"),
            "true = once the application starts to use RMI, a background thread loads and verifies the classes of"
                    + " Remora's first calls (about two hundred, which a first call otherwise loads and verifies while"
                    + " its caller waits) and runs the slowest of their static initialisers; false = each when first"
                    + " used."),
    EXIT_FAST("remora.exit.fast", "true", values("true", "false"),
            "JVM exit: true = once the application's shutdown hooks have run, RMI's listening sockets are closed and"
                    + " its accepted connections shut for reading, so no thread is left blocked in a socket call (the"
                    + " JVM waits up to 300 ms at exit for such threads, with or without Remora); false = as the"
                    + " JDK does."),
    TYPECACHE("remora.typecache", "connection", values("connection", "call"),
            "Fast serializer's type cache: connection = a class is described once per connection, call = every call."),
    DISPATCH("remora.dispatch", "auto", values("auto", "pool", "inline"),
            "Server threads for Remora calls. Whatever the mode, server threads are shared out as JRMP's connections"
                    + " are: a client thread that calls alone keeps its server thread, client threads that take turns"
                    + " share one, client threads that call at once get one each. auto = the calls of the first"
                    + " client thread (or turn-takers) on the receiving thread, others on pool threads, and a pool"
                    + " thread takes over receiving when a call runs longer than remora.dispatch.handoff; pool ="
                    + " always pool threads; inline = always the receiving thread (every client thread of a JVM on"
                    + " one server thread; a blocked call holds up its connection)."),
    DISPATCH_HANDOFF("remora.dispatch.handoff", "20000", integer(10, 60_000_000),
            "Microseconds a call may run on the receiving thread (remora.dispatch=auto) before a pool thread takes"
                    + " over receiving on its connection (the calling client thread keeps that thread; while it is the"
                    + " only client thread calling, that thread takes receiving back with its next call; a hand-off"
                    + " shorter than a scheduler slice happens when the thread is merely descheduled)."),
    DISPATCH_THREADS("remora.dispatch.threads", "0", integer(0, 4096),
            "Server threads made ahead of time for remora.dispatch=pool and auto; 0 = max(4, 2 x available"
                    + " processors)."),
    CONNECTIONS("remora.connections", "16", integer(1, 1024),
            "Remora connections a client JVM opens to one server at most. A call made while the calls of other"
                    + " threads hold every one takes another, opened then, as JRMP opens a connection per concurrent"
                    + " call: that connection's server thread reads and runs it, with no hand-off to a pool thread."
                    + " Such a connection is kept for later concurrent calls and closed once unused for"
                    + " sun.rmi.transport.connectionTimeout (15 s). Over Remora's socket transport only (a connection"
                    + " that moved to fabric shares itself); one-way calls, futures and a thread that made a one-way"
                    + " call stay on the first connection. Beyond this many, calls share the connections. 1 = one"
                    + " connection per server."),
    CONNECT_EARLY("remora.connect.early", "true", values("true", "false"),
            "true = a client opens its Remora connection to a server (and learns whether the server runs Remora)"
                    + " on a background thread as soon as a stub for one of the server's objects arrives in a"
                    + " result (a lookup's, a return value; not in the arguments of a call this JVM serves, such as"
                    + " a registry's bind), where the JDK's distributed garbage collector makes its first call to"
                    + " that server, rather than in the application's first call; such a connection that has"
                    + " carried no call after sun.rmi.transport.connectionTimeout (15 s) is closed, as JRMP closes"
                    + " its idle connections, and the first call opens another; false = at the first call."),
    TRACING("remora.tracing", "true", values("true", "false"),
            "true = when OpenTelemetry's Java agent runs in the JVM, Remora's calls carry its trace context (as its"
                    + " propagators write it) and a server hands it to that agent before the method runs, as the"
                    + " agent itself carries it with JRMP's calls, so the server's spans join the client's traces;"
                    + " false = not carried (servers then record no span for Remora's calls)."),
    PROBE_TIMEOUT("remora.probe.timeout", "2000", integer(1, 600_000),
            "Milliseconds the first call to an endpoint waits for Remora's hello before it treats the peer as JRMP."),
    FRAME_MAX("remora.frame.max", "2147483639", integer(64, Integer.MAX_VALUE),
            "Largest Remora frame (bytes) accepted from a peer; a larger one closes that connection as malformed."
                    + " Default: the largest Java array (JRMP has no bound; a call whose arguments do not fit in one"
                    + " frame goes by JRMP)."),
    OOS("remora.oos", "jdk", values("jdk", "fast"),
            "The application's own serialization streams: fast = new ObjectOutputStream(out) (exact class; subclasses"
                    + " such as RMI's write the JDK's format) writes Remora's format behind header ACED524E (a JVM"
                    + " without Remora fails on it with StreamCorruptedException); ObjectInputStream and the"
                    + " application's subclasses of it read either format, the subclasses' resolveClass,"
                    + " resolveProxyClass and resolveObject honoured; jdk = untouched."),
    ASYNC("remora.async", "", methods(),
            "Server: one-way methods. The client's call returns once it is sent; the server runs it in order with"
                    + " that client thread's other calls and sends no reply (what it throws is logged and counted)."
                    + " Only void methods declaring no checked exception but RemoteException (others are refused"
                    + " with one line and stay synchronous). Clients learn it from the server, with no setting."),
    FUTURE("remora.future", "", methods(),
            "Server: methods whose client gets the result as a future: an object of the return interface that"
                    + " waits for the reply when first used, then behaves as the result. Only methods returning a"
                    + " non-remote interface and declaring no checked exception but RemoteException."),
    ASYNC_MAX_PENDING("remora.async.maxPending", "1024", integer(1, 1_000_000),
            "Client: one-way calls a connection may carry that the server has not yet confirmed run, and future calls"
                    + " whose reply has not come (counted apart); the next one waits (the server's queue for a"
                    + " connection, and the future calls it runs at once for it, stay within this)."),
    ASYNC_BATCH("remora.async.batch", "true", values("true", "false"),
            "Client: one-way calls that follow one another on a connection (each within 20 us of the one before)"
                    + " leave together in one write (socket) or message (fabric), within about 20 us (plus the timer's"
                    + " slack) of the first, before any other call, or at 32 KB; a lone one leaves at once. false ="
                    + " each on its own."),
    FUTURE_BATCH("remora.future.batch", "true", values("true", "false"),
            "Client: future calls issued back to back on a connection leave together in one write or message (as"
                    + " remora.async.batch; a lone one at once); server: replies to future calls that end while others"
                    + " of the connection still run leave together. false = each on its own."),
    STATS("remora.stats", "false", values("true", "false"),
            "Print Remora's counters at exit: calls on Remora's path and on JRMP, fallbacks and why, bytes, types;"
                    + " and the void methods called synchronously whose callers waited longest, which remora.async"
                    + " could make one-way."),
    STATS_STREAMS("remora.stats.streams", "false", values("true", "false"),
            "With remora.stats: also count ObjectOutputStream/ObjectInputStream writeObject/readObject calls, through"
                    + " a hook in each (off by default: it costs the JDK's serialization a call per object)."),
    LOG("remora.log", "info", values("quiet", "info", "debug"),
            "How much Remora prints to stderr: quiet = errors only, info = one line per fallback reason, debug = more."),
    CACHE_DIR("remora.cache.dir", "auto", free("auto, off, or a directory"),
            "Where Remora keeps the JDK classes it wove, so that later JVMs of the same JDK and agent skip Byte Buddy"
                    + " (150-400 ms of CPU at the first RMI use): auto = $XDG_CACHE_HOME/remora or ~/.cache/remora."
                    + " Used only when owned by this user and writable by nobody else; off = weave in every JVM."),
    STRICT("remora.strict", "false", values("true", "false"),
            "true: a bad remora.* value or a failed install exits the JVM (status 78) instead of leaving plain RMI."),
    DEBUG_FAULTS("remora.debug.faults", "none", values("none", "advice", "serializer", "send"),
            "For tests: advice = every hook throws inside its advice, to prove the host application survives;"
                    + " serializer = the fast serializer fails on every call's arguments, result and exception, to"
                    + " prove they go by JDK serialization instead; send = the first call and the first one-way call"
                    + " fail partway through their send, to prove they go by JRMP instead.");

    private final String key;
    private final String defaultValue;
    private final Allowed allowed;
    private final String description;

    Property(String key, String defaultValue, Allowed allowed, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.allowed = allowed;
        this.description = description;
    }

    public String key() {
        return key;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String description() {
        return description;
    }

    /** Human text of what is allowed, as printed in errors and in the README table. */
    public String allowedText() {
        return allowed.describe();
    }

    /**
     * Checks a value.
     *
     * @return null when the value is usable, else the reason (one line, without the property name)
     */
    public String check(String value) {
        return allowed.check(value);
    }

    public static Property forKey(String key) {
        for (Property p : values()) {
            if (p.key.equals(key)) {
                return p;
            }
        }
        return null;
    }

    /** The README's property table, generated from the declarations. */
    public static String markdownTable() {
        StringBuilder sb = new StringBuilder();
        sb.append("| property | default | allowed | what it does |\n");
        sb.append("|---|---|---|---|\n");
        for (Property p : values()) {
            sb.append("| `").append(p.key).append("` | `").append(p.defaultValue).append("` | ")
                    .append(p.allowedText().replace("|", "\\|")).append(" | ")
                    .append(p.description.replace("|", "\\|")).append(" |\n");
        }
        return sb.toString();
    }

    private static Allowed.Choice values(String... built) {
        return new Allowed.Choice(Arrays.asList(built));
    }

    private static Allowed free(String text) {
        return new Allowed.Free(text);
    }

    private static Allowed methods() {
        return new Allowed.Methods();
    }

    /**
     * The entries of a method list ({@code remora.async}, {@code remora.future}): split at commas outside
     * parentheses, trimmed, empty ones dropped.
     */
    public static List<String> methodList(String value) {
        List<String> out = new ArrayList<>();
        if (value == null) {
            return out;
        }
        int depth = 0;
        int from = 0;
        for (int i = 0; i <= value.length(); i++) {
            char c = i == value.length() ? ',' : value.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            } else if (c == ',' && (depth == 0 || i == value.length())) { // an unclosed '(' keeps its entry whole
                String s = value.substring(from, i).trim();
                if (!s.isEmpty()) {
                    out.add(s);
                }
                from = i + 1;
            }
        }
        return out;
    }

    private static Allowed integer(int min, int max) {
        return new Allowed.IntRange(min, max);
    }

    /** What a property accepts. */
    abstract static class Allowed {
        abstract String check(String value);

        abstract String describe();

        /** A fixed set of values; some may be declared but not built yet. */
        static final class Choice extends Allowed {
            private final List<String> built;
            private final List<String> notYet = new ArrayList<>();

            Choice(List<String> built) {
                this.built = Collections.unmodifiableList(built);
            }

            Choice notYet(String... later) {
                notYet.addAll(Arrays.asList(later));
                return this;
            }

            @Override
            String check(String value) {
                if (built.contains(value)) {
                    return null;
                }
                if (notYet.contains(value)) {
                    return "'" + value + "' is not built yet in this release; allowed now: " + String.join(", ", built);
                }
                return "'" + value + "' is not one of " + String.join(", ", built);
            }

            @Override
            String describe() {
                String s = String.join(", ", built);
                return notYet.isEmpty() ? s : s + " (not built yet: " + String.join(", ", notYet) + ")";
            }
        }

        /** Any non-empty text. */
        static final class Free extends Allowed {
            private final String text;

            Free(String text) {
                this.text = text;
            }

            @Override
            String check(String value) {
                return value.isBlank() ? "an empty value is not allowed; use " + text : null;
            }

            @Override
            String describe() {
                return text;
            }
        }

        /** A comma list of pkg.Class#method or pkg.Class#method(type,...), possibly empty. */
        static final class Methods extends Allowed {
            @Override
            String check(String value) {
                for (String e : methodList(value)) {
                    int hash = e.indexOf('#');
                    int open = e.indexOf('(');
                    if (hash <= 0 || hash == e.length() - 1 || e.indexOf('#', hash + 1) >= 0
                            || open >= 0 && (open < hash || open == hash + 1 || !e.endsWith(")"))) {
                        return "'" + e + "' is not pkg.Class#method or pkg.Class#method(type,...)";
                    }
                }
                return null;
            }

            @Override
            String describe() {
                return "comma list of pkg.Class#method or pkg.Class#method(type,...), types as int, java.lang.String,"
                        + " byte[]; empty = none";
            }
        }

        /** A decimal integer in a range. */
        static final class IntRange extends Allowed {
            private final int min;
            private final int max;

            IntRange(int min, int max) {
                this.min = min;
                this.max = max;
            }

            @Override
            String check(String value) {
                try {
                    int v = Integer.parseInt(value.trim());
                    return v >= min && v <= max ? null : "'" + value + "' is outside " + describe();
                } catch (NumberFormatException e) {
                    return "'" + value + "' is not a whole number (" + describe() + ")";
                }
            }

            @Override
            String describe() {
                return max == Integer.MAX_VALUE ? "an integer >= " + min : "an integer from " + min + " to " + max;
            }
        }
    }
}

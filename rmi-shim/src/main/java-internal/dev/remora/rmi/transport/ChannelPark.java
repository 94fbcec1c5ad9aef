package dev.remora.rmi.transport;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import sun.nio.ch.SelChImpl;

/**
 * Waits until a socket channel is ready to read or write with one {@code poll(2)} on its descriptor, as the JDK's own
 * blocking channel operations wait ({@code SelChImpl.park}; on a virtual thread, the JDK's poller parks it instead of
 * holding its carrier). A {@code Selector} did the same with an epoll set and three descriptors of its own. Compiled
 * on its own with {@code --add-exports java.base/sun.nio.ch} (src/main/java-internal) and used only once
 * {@link UnixTechnology} has seen java.base export the package to this module, as the agent does at activation.
 */
final class ChannelPark {
    private ChannelPark() {
    }

    /**
     * Whether this JDK's channels have the two methods used here (JDK 17 to 25 do): checked before the first link, so
     * that a JDK without them leaves connections on TCP instead of failing a call's wait. Only once java.base exports
     * the package to this module.
     */
    static boolean usable() {
        try {
            SelChImpl.class.getMethod("park", int.class, long.class);
            SelChImpl.class.getMethod("translateInterestOps", int.class);
            return true;
        } catch (NoSuchMethodException | LinkageError | SecurityException e) {
            return false;
        }
    }

    /** Whether {@code ch} is the JDK's own channel, which this can wait on. */
    static boolean supports(SocketChannel ch) {
        return ch instanceof SelChImpl;
    }

    /**
     * Returns once {@code ch} is ready for {@code op} (a {@code SelectionKey.OP_*}), has failed or was shut down, or
     * after about {@code nanos} (rounded up to a millisecond; 0 or less: no limit); also early, at times, for no
     * reason: the caller tries its operation again and waits again.
     */
    static void park(SocketChannel ch, int op, long nanos) throws IOException {
        SelChImpl c = (SelChImpl) ch;
        c.park(c.translateInterestOps(op), nanos);
    }
}

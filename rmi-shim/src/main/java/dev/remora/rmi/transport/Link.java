package dev.remora.rmi.transport;

import dev.remora.rmi.wire.FrameBuffer;
import java.io.Closeable;
import java.io.IOException;

/**
 * One connection between two Remora JVMs, carrying whole frames (see {@code dev.remora.rmi.wire.Frame}). Message
 * oriented on purpose: a stream transport cuts its stream into frames, a libfabric endpoint maps a frame to a
 * message. Sending is thread-safe (frames of concurrent senders never interleave); receiving is done by one thread at
 * a time, which the caller guarantees.
 */
public interface Link extends Closeable {
    /**
     * The read timeout a link's socket has while a wait has none (about 24.8 days), waited through: every read of a
     * socket Remora keeps is a timed one. The JDK's socket read has a timed and an untimed path; JRMP's server side
     * reads with its 2-hour timeout, so a JVM whose reads took both had C2 compile both into one large method, on
     * the CPU the application's first calls wait for (docs/startup.md, "The JDK's socket read, compiled once").
     */
    int READ_FOREVER_MILLIS = Integer.MAX_VALUE;

    /**
     * Sends {@code frame.array()[0, frame.length())}, one whole frame.
     *
     * @throws NotSent when Remora's own code failed before the frame had left whole; the link is then closed
     */
    void send(FrameBuffer frame) throws IOException;

    /**
     * A frame that did not leave whole because Remora's own code failed while sending it (copying a tail's arrays,
     * say), not the connection: the peer cannot have acted on it, so a call may still go by JRMP. Whatever part had
     * left would have put the peer out of step, so the link is closed: its peer reads the end of the connection
     * instead of waiting forever for the rest.
     */
    final class NotSent extends IOException {
        private static final long serialVersionUID = 1L;

        public NotSent(Link link, Throwable cause) {
            super("Remora could not send a frame to " + link.peer() + " whole (" + cause + "); its connection is closed",
                    cause);
        }
    }

    /**
     * Blocks for the next frame and copies it whole (header included) into the buffer {@code sink} chooses from its
     * header.
     *
     * @param timeoutMillis 0 waits forever; else a {@link java.net.SocketTimeoutException} after that long
     * @throws java.io.EOFException when the peer closed the connection
     * @throws MalformedFrameException when the peer sent something that is not a frame (the link is then unusable)
     */
    FrameBuffer receive(Sink sink, int timeoutMillis) throws IOException;

    /**
     * Cheap check, for a connection that sat idle, that the peer has not gone away. Called only by the thread allowed
     * to receive, and only when no reply is awaited.
     */
    boolean stillOpen();

    boolean isOpen();

    /**
     * Whether {@link #send} may be given several whole frames back to back in one buffer (a stream transport, whose
     * receiver cuts the stream into frames); a message transport carries one frame per message.
     */
    default boolean carriesFrameRuns() {
        return false;
    }

    /**
     * A hint from the thread allowed to receive: its next {@link #receive} is likely to wait long (for the peer to
     * work through many calls), so a transport that polls before it blocks may block at once when the CPU is shared.
     */
    default void expectLongWait() {
    }

    /** Closes the connection; never throws. */
    @Override
    void close();

    /** host:port of the peer, for messages. */
    String peer();

    /** Chooses where a frame goes once its header is known. */
    interface Sink {
        /** @return a buffer (its content is replaced) for the frame of {@code length} bytes */
        FrameBuffer bufferFor(byte kind, int callId, int length);
    }
}

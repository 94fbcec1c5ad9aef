package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.wire.Frame;

/**
 * The marshalling of one side of one connection (or one thread's co-located calls): its {@link FastChannel}, the
 * {@link #writer} chosen once from {@code remora.serializer}, and the reader of each frame the peer sent, which that
 * frame's FAST flag names (peers configured differently still understand each other).
 */
final class Marshalling {
    /** Made for every connection: a peer configured fast sends fast frames whatever this side writes. */
    final FastChannel channel;
    final Marshaller writer;
    private final Marshaller fast;

    Marshalling(FastChannel channel, RouterOptions options) {
        this.channel = channel;
        this.fast = new Marshaller.Fast(channel, options.listener, options.faultSerializer);
        this.writer = options.serializer == RouterOptions.Serializer.FAST ? fast : Marshaller.JDK;
    }

    /** The marshaller that reads the payload of a frame with these flags. */
    Marshaller reader(byte flags) {
        return (flags & Frame.FLAG_FAST) != 0 ? fast : Marshaller.JDK;
    }
}

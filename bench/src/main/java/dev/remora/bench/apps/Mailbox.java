package dev.remora.bench.apps;

import java.util.concurrent.LinkedBlockingQueue;

/**
 * Messages a rank's remote object received, one FIFO per sending rank: a sender's calls arrive in the order it made
 * them, so a receiver that takes from a given sender gets that sender's messages in order.
 */
final class Mailbox<T> {
    private final LinkedBlockingQueue<T>[] queues;

    @SuppressWarnings("unchecked")
    Mailbox(int ranks) {
        queues = new LinkedBlockingQueue[ranks];
        for (int i = 0; i < ranks; i++) {
            queues[i] = new LinkedBlockingQueue<>();
        }
    }

    void put(int from, T message) {
        queues[from].add(message);
    }

    /** The next message from rank {@code from}, waiting for it; the wait counts as communication time. */
    T take(Ctx ctx, int from) throws InterruptedException {
        T m = queues[from].poll();
        if (m != null) {
            return m;
        }
        long t = System.nanoTime();
        m = queues[from].take();
        ctx.waited(System.nanoTime() - t);
        return m;
    }
}

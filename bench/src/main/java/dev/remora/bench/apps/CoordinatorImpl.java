package dev.remora.bench.apps;

/** A central barrier: each caller waits until the last of {@code ranks} arrives. */
final class CoordinatorImpl implements Coordinator {
    private final int ranks;
    private int arrived;
    private long generation;

    CoordinatorImpl(int ranks) {
        this.ranks = ranks;
    }

    @Override
    public synchronized void barrier(int rank) {
        long gen = generation;
        if (++arrived == ranks) {
            arrived = 0;
            generation++;
            notifyAll();
            return;
        }
        boolean interrupted = false;
        while (gen == generation) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }
}

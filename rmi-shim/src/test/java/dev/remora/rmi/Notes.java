package dev.remora.rmi;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that collects the router's notes ("key: message"), for tests that check what it said. */
final class Notes implements RouterListener {
    final List<String> lines = new CopyOnWriteArrayList<>();

    @Override
    public void bytes(long out, long in) {
    }

    @Override
    public void note(String key, String message) {
        lines.add(key + ": " + message);
    }
}

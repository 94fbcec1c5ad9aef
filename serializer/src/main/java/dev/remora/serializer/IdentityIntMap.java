package dev.remora.serializer;

import java.util.Arrays;

/**
 * Open-addressing identity map from object to int, for the write side's handle and type tables. No allocation on
 * lookups or inserts below capacity; {@link #clear()} costs only what was used.
 */
final class IdentityIntMap {
    private Object[] keys;
    private int[] values;
    private int size;
    private int mask;

    IdentityIntMap(int capacity) {
        int c = Integer.highestOneBit(Math.max(8, capacity) * 2 - 1);
        keys = new Object[c];
        values = new int[c];
        mask = c - 1;
    }

    int size() {
        return size;
    }

    /** Value of key, or -1. */
    int get(Object key) {
        Object[] k = keys;
        int i = hash(key) & mask;
        for (;;) {
            Object e = k[i];
            if (e == key) {
                return values[i];
            }
            if (e == null) {
                return -1;
            }
            i = (i + 1) & mask;
        }
    }

    /** Value of key if present; else inserts key with value and returns -1. One probe sequence. */
    int putIfAbsent(Object key, int value) {
        if (size * 2 >= keys.length) {
            grow();
        }
        Object[] k = keys;
        int i = hash(key) & mask;
        for (;;) {
            Object e = k[i];
            if (e == key) {
                return values[i];
            }
            if (e == null) {
                k[i] = key;
                values[i] = value;
                size++;
                return -1;
            }
            i = (i + 1) & mask;
        }
    }

    /** Inserts a key not present. */
    void put(Object key, int value) {
        if (size * 2 >= keys.length) {
            grow();
        }
        int i = hash(key) & mask;
        while (keys[i] != null) {
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        size++;
    }

    void clear() {
        if (size != 0) {
            Arrays.fill(keys, null);
            size = 0;
        }
    }

    /** Removes every entry whose value is >= from (rollback of a failed call); rare, so it rebuilds. */
    void removeValuesFrom(int from) {
        Object[] ok = keys;
        int[] ov = values;
        keys = new Object[ok.length];
        values = new int[ok.length];
        size = 0;
        for (int i = 0; i < ok.length; i++) {
            if (ok[i] != null && ov[i] < from) {
                put(ok[i], ov[i]);
            }
        }
    }

    private void grow() {
        Object[] ok = keys;
        int[] ov = values;
        keys = new Object[ok.length * 2];
        values = new int[ok.length * 2];
        mask = keys.length - 1;
        size = 0;
        for (int i = 0; i < ok.length; i++) {
            if (ok[i] != null) {
                put(ok[i], ov[i]);
            }
        }
    }

    private static int hash(Object o) {
        int h = System.identityHashCode(o);
        return h ^ (h >>> 16);
    }
}

package dev.remora.serializer;

import java.util.Arrays;

/**
 * Identity map from object to int, for the write side's handle and type tables. No allocation on lookups or inserts
 * below capacity; {@link #clear()} costs only what was used.
 *
 * <p>The first {@value #LINEAR} entries live in two small arrays searched linearly by {@code ==}; only a map that
 * grows past them moves to open addressing on {@link System#identityHashCode}. Most calls marshal a handful of
 * objects, and an object created just before it is written (a server echoing what it just read, a fresh result)
 * has no identity hash yet: computing one costs far more than comparing a few dozen references. The echo of a
 * 15-node tree computed 30 such hashes per call before.
 */
final class IdentityIntMap {
    static final int LINEAR = 32;

    private final Object[] lkeys = new Object[LINEAR];
    private final int[] lvals = new int[LINEAR];
    /** True once the entries are in the hash table (keys/values) instead of the linear arrays. */
    private boolean hashed;
    private Object[] keys;
    private int[] values;
    private int size;
    private int mask;

    IdentityIntMap(int capacity) {
        int c = Integer.highestOneBit(Math.max(LINEAR * 2, capacity) * 2 - 1);
        keys = new Object[c];
        values = new int[c];
        mask = c - 1;
    }

    int size() {
        return size;
    }

    /** Value of key, or -1. */
    int get(Object key) {
        if (!hashed) {
            Object[] lk = lkeys;
            for (int i = 0, n = size; i < n; i++) {
                if (lk[i] == key) {
                    return lvals[i];
                }
            }
            return -1;
        }
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

    /** Value of key if present; else inserts key with value and returns -1. One search. */
    int putIfAbsent(Object key, int value) {
        if (!hashed) {
            Object[] lk = lkeys;
            int n = size;
            for (int i = 0; i < n; i++) {
                if (lk[i] == key) {
                    return lvals[i];
                }
            }
            if (n < LINEAR) {
                lk[n] = key;
                lvals[n] = value;
                size = n + 1;
                return -1;
            }
            toHashed();
        }
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
        if (!hashed) {
            if (size < LINEAR) {
                lkeys[size] = key;
                lvals[size] = value;
                size++;
                return;
            }
            toHashed();
        }
        putHashed(key, value);
    }

    private void putHashed(Object key, int value) {
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
            if (hashed) {
                Arrays.fill(keys, null);
                hashed = false;
            } else {
                Arrays.fill(lkeys, 0, size, null);
            }
            size = 0;
        }
    }

    /** Removes every entry whose value is >= from (rollback of a failed call); rare, so it rebuilds. */
    void removeValuesFrom(int from) {
        if (!hashed) {
            int n = 0;
            for (int i = 0; i < size; i++) {
                if (lvals[i] < from) {
                    lkeys[n] = lkeys[i];
                    lvals[n] = lvals[i];
                    n++;
                }
            }
            Arrays.fill(lkeys, n, size, null);
            size = n;
            return;
        }
        Object[] ok = keys;
        int[] ov = values;
        keys = new Object[ok.length];
        values = new int[ok.length];
        size = 0;
        for (int i = 0; i < ok.length; i++) {
            if (ok[i] != null && ov[i] < from) {
                putHashed(ok[i], ov[i]);
            }
        }
    }

    /** Moves the linear entries into the hash table (the table is empty: clear() left it so). */
    private void toHashed() {
        int n = size;
        size = 0;
        hashed = true;
        for (int i = 0; i < n; i++) {
            putHashed(lkeys[i], lvals[i]);
            lkeys[i] = null;
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
                putHashed(ok[i], ov[i]);
            }
        }
    }

    private static int hash(Object o) {
        int h = System.identityHashCode(o);
        return h ^ (h >>> 16);
    }
}

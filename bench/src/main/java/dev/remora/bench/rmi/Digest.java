package dev.remora.bench.rmi;

/**
 * Deterministic 64-bit digests of benchmark payloads and results (FNV-1a over 64-bit words with a type tag per
 * value). Unlike {@code hashCode()} it depends on nothing but the content, so a vanilla run and an agent run print
 * the same {@code verify} lines and can be compared line by line.
 */
public final class Digest {

    /** FNV-1a 64-bit offset basis: the digest of nothing. */
    public static final long EMPTY = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private Digest() {
    }

    /** Mixes one word into the digest. */
    public static long mix(long h, long v) {
        return (h ^ v) * PRIME;
    }

    /** Digest of a payload or result, starting from {@link #EMPTY}. */
    public static long of(Object o) {
        return of(EMPTY, o);
    }

    /** Mixes a payload or result into {@code h}. Throws for types the collection never sends. */
    public static long of(long h, Object o) {
        if (o == null) {
            return mix(h, 0);
        }
        if (o instanceof byte[]) {
            byte[] a = (byte[]) o;
            h = mix(mix(h, 1), a.length);
            for (byte b : a) {
                h = mix(h, b);
            }
            return h;
        }
        if (o instanceof int[]) {
            int[] a = (int[]) o;
            h = mix(mix(h, 2), a.length);
            for (int v : a) {
                h = mix(h, v);
            }
            return h;
        }
        if (o instanceof float[]) {
            float[] a = (float[]) o;
            h = mix(mix(h, 3), a.length);
            for (float v : a) {
                h = mix(h, Float.floatToRawIntBits(v));
            }
            return h;
        }
        if (o instanceof Int4) {
            Int4 x = (Int4) o;
            return mix(mix(mix(mix(mix(h, 4), x.a), x.b), x.c), x.d);
        }
        if (o instanceof Int4Null2) {
            Int4Null2 x = (Int4Null2) o;
            h = mix(mix(mix(mix(mix(h, 5), x.a), x.b), x.c), x.d);
            return of(of(h, x.left), x.right);
        }
        if (o instanceof Int32) {
            return ((Int32) o).digest(mix(h, 6));
        }
        if (o instanceof Tree) {
            Tree t = (Tree) o;
            h = mix(mix(h, 7), t.value);
            return of(of(h, t.left), t.right);
        }
        if (o instanceof String) {
            String s = (String) o;
            h = mix(mix(h, 8), s.length());
            for (int i = 0; i < s.length(); i++) {
                h = mix(h, s.charAt(i));
            }
            return h;
        }
        throw new IllegalArgumentException("no digest for " + o.getClass().getName());
    }

    /** Sixteen lower-case hex digits. */
    public static String hex(long h) {
        String s = Long.toHexString(h);
        return "0000000000000000".substring(s.length()) + s;
    }
}

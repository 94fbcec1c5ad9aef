package dev.remora.rmi.wire;

/** Tests' tail: one range of a byte array (FastChannel's tails are the serializer's pieces); tests may override. */
public class ArrayTail implements FrameBuffer.Tail {
    private final byte[] a;
    private final int off;
    private final int len;

    public ArrayTail(byte[] a, int off, int len) {
        java.util.Objects.checkFromIndexSize(off, len, a.length);
        this.a = a;
        this.off = off;
        this.len = len;
    }

    @Override
    public int length() {
        return len;
    }

    @Override
    public int pieces() {
        return 1;
    }

    @Override
    public Object piece(int i) {
        return a;
    }

    @Override
    public int pieceOffset(int i) {
        return off;
    }

    @Override
    public int pieceLength(int i) {
        return len;
    }

    @Override
    public void copyTo(byte[] dst, int at) {
        System.arraycopy(a, off, dst, at, len);
    }
}

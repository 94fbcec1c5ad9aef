package dev.remora.serializer.v2;

/** v1's CastSub (CastDetailTest). */
public class CastSub extends CastHolder {
    private static final long serialVersionUID = 1L;
}

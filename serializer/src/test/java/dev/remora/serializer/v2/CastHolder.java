package dev.remora.serializer.v2;

import java.io.Serializable;

/** v1's CastHolder with bar a Float (CastDetailTest). */
public class CastHolder implements Serializable {
    private static final long serialVersionUID = 0L;
    private Float bar;
}

package dev.remora.serializer.v1;

import java.io.Serializable;

/** Its field bar is an Integer here and a Float in v2 (RecordFidelityTest's neighbour, CastDetailTest). */
public class CastHolder implements Serializable {
    private static final long serialVersionUID = 0L;
    private Integer bar = 5;
}

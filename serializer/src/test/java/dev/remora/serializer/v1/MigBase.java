package dev.remora.serializer.v1;

import java.io.Serializable;

/** A superclass whose fields a record reading MigPoint drops. */
public class MigBase implements Serializable {
    private static final long serialVersionUID = 1L;
    String base;
}

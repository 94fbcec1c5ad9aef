package dev.remora.serializer.v1;

import java.io.Serializable;

public class Suid implements Serializable {
    private static final long serialVersionUID = 1L;
    public int x = 1;
}

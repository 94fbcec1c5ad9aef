package dev.remora.serializer.v2;

import java.io.Serializable;

public class Suid implements Serializable {
    private static final long serialVersionUID = 2L;
    public int x = 1;
}

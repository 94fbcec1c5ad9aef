package dev.remora.serializer.v1;

import java.io.Serializable;

/** Version 1 of a class that evolves: fields a and b, no serializable superclass. */
public class Evolve implements Serializable {
    private static final long serialVersionUID = 7L;
    public int a = 11;
    public String b = "bee";
}

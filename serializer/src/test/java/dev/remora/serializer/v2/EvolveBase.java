package dev.remora.serializer.v2;

import java.io.ObjectStreamException;
import java.io.Serializable;

public class EvolveBase implements Serializable {
    private static final long serialVersionUID = 1L;
    public String baseState = "constructed";

    private void readObjectNoData() throws ObjectStreamException {
        baseState = "noData";
    }
}

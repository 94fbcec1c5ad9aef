package dev.remora.serializer.v1;

/** A subclass, so the message names the instance's class apart from the field's (CastDetailTest). */
public class CastSub extends CastHolder {
    private static final long serialVersionUID = 1L;
}

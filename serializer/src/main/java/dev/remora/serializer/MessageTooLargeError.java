package dev.remora.serializer;

/**
 * A message would not fit in one Java array (about 2 GB): Remora's messages and frames are arrays, where JDK
 * serialization streams have no such bound. Whoever builds the message can leave the value to JDK serialization
 * (the RMI shim sends such a call by JRMP).
 */
public final class MessageTooLargeError extends OutOfMemoryError {
    private static final long serialVersionUID = 1L;
    /** The largest array the JVM allocates. */
    public static final int MAX_BYTES = Integer.MAX_VALUE - 8;

    public MessageTooLargeError(long bytes) {
        super("Remora message of " + bytes + " bytes or more: larger than the largest array (" + MAX_BYTES
                + " bytes)");
    }
}

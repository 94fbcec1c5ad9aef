package dev.remora.rmi.transport;

import java.io.IOException;

/** The peer sent bytes that are not a Remora frame: the connection is closed, no other is affected. */
public final class MalformedFrameException extends IOException {
    private static final long serialVersionUID = 1L;

    public MalformedFrameException(String message) {
        super(message);
    }
}

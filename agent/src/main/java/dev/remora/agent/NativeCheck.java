package dev.remora.agent;

import dev.remora.fabric.Fabric;

/**
 * What the self-check says about the native transport: whether Remora's JNI library and libfabric load, the
 * libfabric version, and the providers that offer the RDM endpoints Remora uses.
 */
final class NativeCheck {

    private NativeCheck() {
    }

    static String describe() {
        if (!Fabric.isAvailable()) {
            Throwable cause = Fabric.unavailabilityCause();
            return "unavailable (" + (cause == null ? "no reason given" : cause.getMessage())
                    + "); Remora would use its socket transport";
        }
        return "libfabric " + Fabric.libfabricVersion() + ", RDM providers: " + String.join(", ", Fabric.providers());
    }
}

package dev.remora.fabric;

/**
 * Regression check run in a fresh JVM by NativeLoadingIT: load libfabric, open shm and tcp endpoints (provider
 * initialisation), then take many implicit NullPointerExceptions in JIT-compiled code. Those are SIGSEGVs the JVM
 * handles itself; with libpsm2/libinfinipath's backtrace handlers left installed, the JVM died on the first one.
 */
public final class SignalSurvivalMain {
    private SignalSurvivalMain() {}

    static int length(String s) {
        return s.length();
    }

    public static void main(String[] args) throws Exception {
        Fabric.ensureAvailability();
        for (String provider : Fabric.providers()) {
            if (provider.equals("shm") || provider.equals("tcp;ofi_rxm")) {
                FabricEndpoint.open(provider).close();
            }
        }
        long caught = 0;
        for (int i = 0; i < 5_000_000; i++) {
            try {
                length((i & 1023) == 0 ? null : "x");
            } catch (NullPointerException e) {
                caught++;
            }
        }
        System.out.println("survived " + caught + " implicit null checks");
    }
}

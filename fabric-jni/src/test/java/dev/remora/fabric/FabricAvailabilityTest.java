package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class FabricAvailabilityTest {

    @Test
    void availabilityIsAValueWithACauseThatNamesTheFix() {
        if (Fabric.isAvailable()) {
            assertNull(Fabric.unavailabilityCause());
            Fabric.ensureAvailability();
            assertTrue(Fabric.libfabricVersion().matches("\\d+\\.\\d+"), Fabric.libfabricVersion());
        } else {
            Throwable cause = Fabric.unavailabilityCause();
            assertTrue(cause.getMessage().contains("remora.transport=socket"), cause.getMessage());
            assertTrue(Fabric.providers().isEmpty());
            UnsatisfiedLinkError e = assertThrows(UnsatisfiedLinkError.class, Fabric::ensureAvailability);
            assertEquals(cause, e.getCause());
        }
    }

    @Test
    void providersListsShmWhenLibfabricIsInstalled() {
        FabricTestSupport.assumeProvider("shm");
        assertTrue(Fabric.providers().contains("shm"), Fabric.providers().toString());
        assertFalse(Fabric.providers().contains(""));
    }

    @Test
    void unknownProviderFailsWithTheCallAndTheFix() {
        FabricTestSupport.assumeProvider("shm");
        IOException e = assertThrows(IOException.class, () -> FabricEndpoint.open("no-such-provider"));
        assertTrue(e.getMessage().startsWith("fi_getinfo: "), e.getMessage());
        assertTrue(e.getMessage().contains("fi_info -l"), e.getMessage());
    }

    @Test
    void optionsRejectNonsense() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> FabricOptions.defaults().withSendTimeoutNanos(0));
        assertTrue(e.getMessage().contains("sendTimeoutNanos"), e.getMessage());
        assertEquals(20_000L, FabricOptions.defaults().spinNanos());
        assertEquals(7L, FabricOptions.defaults().withSpinNanos(7).spinNanos());
        assertThrows(IllegalArgumentException.class, () -> FabricOptions.defaults().withSpinMaxNanos(-1));
        assertThrows(IllegalArgumentException.class, () -> FabricOptions.defaults().withSendRingBytes(-1));
        FabricOptions o = FabricOptions.defaults().withSpinMaxNanos(9).withSendRingBytes(0).withSpinNanos(8);
        assertEquals(9L, o.spinMaxNanos());
        assertEquals(0L, o.sendRingBytes());
        assertEquals(8L, o.spinNanos());
        assertEquals(200_000L, FabricOptions.defaults().spinMaxNanos());
        assertEquals(4L << 20, FabricOptions.defaults().sendRingBytes());
    }
}

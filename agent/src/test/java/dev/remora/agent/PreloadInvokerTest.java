package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remora.agent.hooks.Hooks;
import org.junit.jupiter.api.Test;

/**
 * The invoker {@link Preload#spinInvoker} makes ahead is the one the bridge's client hook needs: the JDK caches
 * invokers by type, so a handle of another type would leave the first call to spin its own.
 */
class PreloadInvokerTest {

    @Test
    void theInvokerMadeAheadHasTheClientHooksType() throws Exception {
        assertEquals(Hooks.handles(false)[0].type(), Preload.CLIENT_INVOKE);
    }

    @Test
    void makingItNeverThrows() {
        Preload.spinInvoker();
        Preload.spinInvoker();
    }
}

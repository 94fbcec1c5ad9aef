package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.TypeCacheMode;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Objects exported with a filter of their own are read by a reader of their own (a stream's filter is set once); a
 * connection keeps a bounded number of them, as a redeployed application's filters are new objects each time.
 */
class FilteredReadersTest {

    /** value as a received frame, ready to be read. */
    private static FrameBuffer frame(FastChannel tx, Object value) throws Exception {
        FrameBuffer f = new FrameBuffer(64);
        Frame.begin(f, Frame.CALL, Frame.FLAG_FAST, 1);
        tx.lockWrite();
        try {
            RmiFastOutput o = tx.beginWrite();
            o.writeObject(value);
            tx.finishWrite(f);
            Frame.finish(f);
        } finally {
            tx.unlockWrite();
        }
        f.position(Frame.HEADER);
        return f;
    }

    private static Object read(FastChannel rx, FrameBuffer f, ObjectInputFilter filter) throws Exception {
        RmiFastInput in = rx.beginRead(f, true, null, filter);
        try {
            return in.readObject();
        } finally {
            rx.endRead(in);
        }
    }

    @Test
    void eachFilterDecidesItsReadsAndOldReadersGo() throws Exception {
        FastChannel tx = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel rx = new FastChannel(TypeCacheMode.CONNECTION);
        List<ObjectInputFilter> generations = new ArrayList<>();
        for (int g = 0; g < 3 * FastChannel.MAX_FILTERED; g++) {
            int limit = g; // arrays up to g elements
            ObjectInputFilter f = info -> info.arrayLength() > limit ? ObjectInputFilter.Status.REJECTED
                    : ObjectInputFilter.Status.UNDECIDED;
            generations.add(f);
            assertEquals(g, ((int[]) read(rx, frame(tx, new int[g]), f)).length);
            assertThrows(InvalidClassException.class, () -> read(rx, frame(tx, new int[limit + 1]), f));
            assertTrue(rx.filteredReaders() <= FastChannel.MAX_FILTERED, "readers kept: " + rx.filteredReaders());
        }
        // an earlier filter's reader, made again, still applies that filter
        ObjectInputFilter first = generations.get(1);
        assertEquals(1, ((int[]) read(rx, frame(tx, new int[1]), first)).length);
        assertThrows(InvalidClassException.class, () -> read(rx, frame(tx, new int[2]), first));
    }
}

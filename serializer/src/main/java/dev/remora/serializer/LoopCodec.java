package dev.remora.serializer;

import java.io.IOException;

/**
 * A slot's first codec on the internal Unsafe: a loop over the slot's fields at their offsets, with the exact wire
 * format of the generated codec ({@link CodecGenerator#generateUnsafe}). After {@code remora.serializer.codegen.after}
 * objects (written and read together) the slot swaps it for the generated one.
 *
 * <p>Why: generating a codec costs a class definition and the interpretation of ASM, a few milliseconds per class
 * in a fresh JVM, and ASM's own loading and compilation before that. A class that crosses the wire a few times (an
 * application's handful of large messages, a fresh pair's first calls) never earns that back; one that crosses
 * thousands of times does, within its first milliseconds. This loop is one class for every slot, compiled once.
 */
final class LoopCodec extends FieldCodec {
    private final Slot slot;
    private final char[] codes;
    private final long[] offsets;
    /** The field's type where a reference read from a stream must be checked before it is stored; else null. */
    private final Class<?>[] checks;
    private final int primBytes;
    /** Objects left before the generated codec is made; racy on purpose (a few more or fewer do no harm). */
    private int left;

    LoopCodec(Slot slot, long[] offsets, Class<?>[] checks, int after) {
        this.slot = slot;
        this.codes = slot.codes;
        this.offsets = offsets;
        this.checks = checks;
        this.primBytes = slot.primBytes;
        this.left = after;
    }

    private void used() {
        if (--left == 0) {
            slot.generateCodec(offsets, checks);
        }
    }

    @Override
    void write(Object obj, RemoraObjectOutput out) throws IOException {
        used();
        char[] cs = codes;
        long[] off = offsets;
        if (primBytes > 0) {
            out.ensure(primBytes);
            byte[] buf = out.buf;
            int p = out.pos;
            for (int i = 0; i < cs.length; i++) {
                switch (cs[i]) {
                    case 'Z': buf[p++] = (byte) (InternalUnsafe.getBoolean(obj, off[i]) ? 1 : 0); break;
                    case 'B': buf[p++] = InternalUnsafe.getByte(obj, off[i]); break;
                    case 'C': Bytes.NC.set(buf, p, InternalUnsafe.getChar(obj, off[i])); p += 2; break;
                    case 'S': Bytes.NS.set(buf, p, InternalUnsafe.getShort(obj, off[i])); p += 2; break;
                    case 'I': Bytes.NI.set(buf, p, InternalUnsafe.getInt(obj, off[i])); p += 4; break;
                    case 'F': Bytes.NF.set(buf, p, InternalUnsafe.getFloat(obj, off[i])); p += 4; break;
                    case 'J': Bytes.NJ.set(buf, p, InternalUnsafe.getLong(obj, off[i])); p += 8; break;
                    case 'D': Bytes.ND.set(buf, p, InternalUnsafe.getDouble(obj, off[i])); p += 8; break;
                    default: break;
                }
            }
            out.pos = p;
        }
        for (int i = 0; i < cs.length; i++) {
            if (Bytes.size(cs[i]) == 0) {
                out.writeFieldObject(InternalUnsafe.getReference(obj, off[i]));
            }
        }
    }

    @Override
    void read(Object obj, RemoraObjectInput in) throws IOException, ClassNotFoundException {
        read(obj, in, false);
    }

    @Override
    void readSwapped(Object obj, RemoraObjectInput in) throws IOException, ClassNotFoundException {
        read(obj, in, true);
    }

    /** The sender's byte order is the opposite of ours when {@code swap} (the S views; both views are constants). */
    private void read(Object obj, RemoraObjectInput in, boolean swap) throws IOException, ClassNotFoundException {
        used();
        if (primBytes > 0) {
            int p = in.take(primBytes);
            byte[] buf = in.buf;
            char[] cs = codes;
            long[] off = offsets;
            for (int i = 0; i < cs.length; i++) {
                switch (cs[i]) {
                    case 'Z': InternalUnsafe.putBoolean(obj, off[i], buf[p++] != 0); break;
                    case 'B': InternalUnsafe.putByte(obj, off[i], buf[p++]); break;
                    case 'C': {
                        char v = swap ? (char) Bytes.SC.get(buf, p) : (char) Bytes.NC.get(buf, p);
                        InternalUnsafe.putChar(obj, off[i], v);
                        p += 2;
                        break;
                    }
                    case 'S': {
                        short v = swap ? (short) Bytes.SS.get(buf, p) : (short) Bytes.NS.get(buf, p);
                        InternalUnsafe.putShort(obj, off[i], v);
                        p += 2;
                        break;
                    }
                    case 'I': {
                        int v = swap ? (int) Bytes.SI.get(buf, p) : (int) Bytes.NI.get(buf, p);
                        InternalUnsafe.putInt(obj, off[i], v);
                        p += 4;
                        break;
                    }
                    case 'F': {
                        float v = swap ? (float) Bytes.SF.get(buf, p) : (float) Bytes.NF.get(buf, p);
                        InternalUnsafe.putFloat(obj, off[i], v);
                        p += 4;
                        break;
                    }
                    case 'J': {
                        long v = swap ? (long) Bytes.SJ.get(buf, p) : (long) Bytes.NJ.get(buf, p);
                        InternalUnsafe.putLong(obj, off[i], v);
                        p += 8;
                        break;
                    }
                    case 'D': {
                        double v = swap ? (double) Bytes.SD.get(buf, p) : (double) Bytes.ND.get(buf, p);
                        InternalUnsafe.putDouble(obj, off[i], v);
                        p += 8;
                        break;
                    }
                    default: break;
                }
            }
        }
        readReferences(obj, in);
    }

    private void readReferences(Object obj, RemoraObjectInput in) throws IOException, ClassNotFoundException {
        char[] cs = codes;
        for (int i = 0; i < cs.length; i++) {
            if (Bytes.size(cs[i]) == 0) {
                Object v = in.readFieldObject();
                if (checks[i] != null) {
                    Slot.checkAssignable(v, checks[i], obj, slot.cl.getName(), slot.names[i]);
                }
                InternalUnsafe.putReference(obj, offsets[i], v);
            }
        }
    }
}

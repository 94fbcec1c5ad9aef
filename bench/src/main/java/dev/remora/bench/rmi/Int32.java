package dev.remora.bench.rmi;

import java.io.Serializable;

/** Seed 000's "32 int" object: 32 int fields (not an array), so serialization pays per-field costs. */
public final class Int32 implements Serializable {

    private static final long serialVersionUID = 1L;

    public int i0;
    public int i1;
    public int i2;
    public int i3;
    public int i4;
    public int i5;
    public int i6;
    public int i7;
    public int i8;
    public int i9;
    public int i10;
    public int i11;
    public int i12;
    public int i13;
    public int i14;
    public int i15;
    public int i16;
    public int i17;
    public int i18;
    public int i19;
    public int i20;
    public int i21;
    public int i22;
    public int i23;
    public int i24;
    public int i25;
    public int i26;
    public int i27;
    public int i28;
    public int i29;
    public int i30;
    public int i31;

    /** The deterministic instance the benchmark sends. */
    public static Int32 sample() {
        Int32 o = new Int32();
        o.i0 = 1;
        o.i1 = 8;
        o.i2 = 15;
        o.i3 = 22;
        o.i4 = 29;
        o.i5 = 36;
        o.i6 = 43;
        o.i7 = 50;
        o.i8 = 57;
        o.i9 = 64;
        o.i10 = 71;
        o.i11 = 78;
        o.i12 = 85;
        o.i13 = 92;
        o.i14 = 99;
        o.i15 = 106;
        o.i16 = 113;
        o.i17 = 120;
        o.i18 = 127;
        o.i19 = 134;
        o.i20 = 141;
        o.i21 = 148;
        o.i22 = 155;
        o.i23 = 162;
        o.i24 = 169;
        o.i25 = 176;
        o.i26 = 183;
        o.i27 = 190;
        o.i28 = 197;
        o.i29 = 204;
        o.i30 = 211;
        o.i31 = 218;
        return o;
    }

    long digest(long h) {
        h = Digest.mix(h, i0);
        h = Digest.mix(h, i1);
        h = Digest.mix(h, i2);
        h = Digest.mix(h, i3);
        h = Digest.mix(h, i4);
        h = Digest.mix(h, i5);
        h = Digest.mix(h, i6);
        h = Digest.mix(h, i7);
        h = Digest.mix(h, i8);
        h = Digest.mix(h, i9);
        h = Digest.mix(h, i10);
        h = Digest.mix(h, i11);
        h = Digest.mix(h, i12);
        h = Digest.mix(h, i13);
        h = Digest.mix(h, i14);
        h = Digest.mix(h, i15);
        h = Digest.mix(h, i16);
        h = Digest.mix(h, i17);
        h = Digest.mix(h, i18);
        h = Digest.mix(h, i19);
        h = Digest.mix(h, i20);
        h = Digest.mix(h, i21);
        h = Digest.mix(h, i22);
        h = Digest.mix(h, i23);
        h = Digest.mix(h, i24);
        h = Digest.mix(h, i25);
        h = Digest.mix(h, i26);
        h = Digest.mix(h, i27);
        h = Digest.mix(h, i28);
        h = Digest.mix(h, i29);
        h = Digest.mix(h, i30);
        h = Digest.mix(h, i31);
        return h;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Int32)) {
            return false;
        }
        Int32 x = (Int32) other;
        return i0 == x.i0 && i1 == x.i1 && i2 == x.i2 && i3 == x.i3 && i4 == x.i4 && i5 == x.i5
                && i6 == x.i6 && i7 == x.i7 && i8 == x.i8 && i9 == x.i9 && i10 == x.i10 && i11 == x.i11
                && i12 == x.i12 && i13 == x.i13 && i14 == x.i14 && i15 == x.i15 && i16 == x.i16 && i17 == x.i17
                && i18 == x.i18 && i19 == x.i19 && i20 == x.i20 && i21 == x.i21 && i22 == x.i22 && i23 == x.i23
                && i24 == x.i24 && i25 == x.i25 && i26 == x.i26 && i27 == x.i27 && i28 == x.i28 && i29 == x.i29
                && i30 == x.i30 && i31 == x.i31;
    }

    @Override
    public int hashCode() {
        return (int) digest(0);
    }
}

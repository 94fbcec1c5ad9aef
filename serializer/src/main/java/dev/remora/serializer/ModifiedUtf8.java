package dev.remora.serializer;

import java.io.ByteArrayOutputStream;
import java.io.StreamCorruptedException;

/**
 * Java's modified UTF-8 (the class-file and {@code DataOutput.writeUTF} encoding) for the names in type descriptors,
 * without the 64 KB limit: every char is encoded on its own, so NUL and unpaired surrogates survive, which the
 * standard UTF-8 charset replaces ({@code '?'} out, U+FFFD in). A class or field name is whatever a class file can
 * hold, and a name that changes on the way names another class.
 */
final class ModifiedUtf8 {
    private ModifiedUtf8() {
    }

    /** Appends {@code s}: its byte count as a varint, then the bytes. */
    static void write(ByteArrayOutputStream b, String s) {
        int n = s.length();
        int bytes = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            bytes += c >= 1 && c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        ClassInfo.varint(b, bytes);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 1 && c < 0x80) {
                b.write(c);
            } else if (c < 0x800) {
                b.write(0xC0 | (c >> 6));
                b.write(0x80 | (c & 0x3F));
            } else {
                b.write(0xE0 | (c >> 12));
                b.write(0x80 | ((c >> 6) & 0x3F));
                b.write(0x80 | (c & 0x3F));
            }
        }
    }

    /** The string in {@code b[p, p + len)}; malformed input (truncated or invalid sequences) is rejected. */
    static String read(byte[] b, int p, int len) throws StreamCorruptedException {
        char[] out = new char[len];
        int n = 0;
        int end = p + len;
        while (p < end) {
            int c = b[p++] & 0xFF;
            if (c < 0x80) {
                out[n++] = (char) c;
            } else if ((c & 0xE0) == 0xC0) {
                if (p >= end) {
                    throw malformed();
                }
                int c2 = b[p++];
                if ((c2 & 0xC0) != 0x80) {
                    throw malformed();
                }
                out[n++] = (char) (((c & 0x1F) << 6) | (c2 & 0x3F));
            } else if ((c & 0xF0) == 0xE0) {
                if (end - p < 2) {
                    throw malformed();
                }
                int c2 = b[p++];
                int c3 = b[p++];
                if ((c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) {
                    throw malformed();
                }
                out[n++] = (char) (((c & 0x0F) << 12) | ((c2 & 0x3F) << 6) | (c3 & 0x3F));
            } else {
                throw malformed();
            }
        }
        return new String(out, 0, n);
    }

    private static StreamCorruptedException malformed() {
        return new StreamCorruptedException("malformed modified UTF-8 name in type descriptor");
    }
}

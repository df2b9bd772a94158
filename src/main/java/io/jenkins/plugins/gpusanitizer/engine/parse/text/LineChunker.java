package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Cuts a UTF-8 stream into {@link LineChunk}s of whole lines. LF, CRLF and lone CR end lines; a line
 * of {@code maxLine} bytes or more is cut to its first {@code maxLine} bytes, the rest dropped and
 * counted. Line ends are found eight bytes at a time: one test per word finds every control byte,
 * and nearly every control byte in a log is a line end.
 */
final class LineChunker {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGH = 0x8080808080808080L;

    private final InputStream in;
    private final int maxLine;
    /** The start of a line that went past the end of the last chunk, moved to the next one. */
    private byte[] carry = new byte[256];

    private int carryLength;
    private boolean skipLf;
    private boolean discarding;
    private boolean eof;
    private long truncatedLines;
    private long lineNumber;

    LineChunker(InputStream in, int maxLine) {
        this.in = in;
        this.maxLine = maxLine;
    }

    /** The capacity a chunk needs so that a carried partial line always leaves room to read. */
    int minCapacity() {
        return 2 * maxLine + 16;
    }

    /**
     * Fills the chunk with the next whole lines (possibly none, when a long line's rest is dropped).
     *
     * @return false when the input had already ended: the chunk is empty and nothing more follows
     */
    boolean fill(LineChunk c) throws IOException {
        c.clear();
        if (eof) {
            c.last = true;
            return false;
        }
        byte[] b = c.bytes;
        System.arraycopy(carry, 0, b, 0, carryLength);
        int len = carryLength;
        carryLength = 0;
        while (len < b.length) {
            int n = in.read(b, len, b.length - len);
            if (n < 0) {
                eof = true;
                break;
            }
            len += n;
        }
        scan(c, len);
        c.last = eof;
        return true;
    }

    private void scan(LineChunk c, int len) {
        byte[] b = c.bytes;
        int start = 0;
        int p = 0;
        byte kind = LineChunk.PLAIN;
        while (true) {
            int j = nextControl(b, p, len);
            if (j >= len) {
                break;
            }
            byte x = b[j];
            p = j + 1;
            if (x != '\n' && x != '\r') {
                kind = LineChunk.CONTROL;
                continue;
            }
            if (skipLf && x == '\n' && j == start) {
                skipLf = false;
                start = p; // the LF of a CRLF
                continue;
            }
            skipLf = x == '\r';
            if (discarding) {
                discarding = false; // the end of an over-long line, already given cut
            } else {
                line(c, start, j, kind);
            }
            start = p;
            kind = LineChunk.PLAIN;
        }
        if (discarding || start == len) {
            return;
        }
        if (len - start >= maxLine) {
            line(c, start, len, kind);
            discarding = true;
            skipLf = false;
        } else if (eof) {
            line(c, start, len, kind);
        } else {
            carryLength = len - start;
            if (carry.length < carryLength) {
                carry = Arrays.copyOf(carry, Math.max(carryLength, 2 * carry.length));
            }
            System.arraycopy(b, start, carry, 0, carryLength);
        }
    }

    private void line(LineChunk c, int start, int end, byte kind) {
        lineNumber++;
        if (end - start >= maxLine) {
            truncatedLines++;
            c.add(start, start + maxLine, LineChunk.CONTROL);
        } else {
            c.add(start, end, kind);
        }
    }

    /** The index of the first byte below 0x20 at or after {@code p}, or {@code len} when there is none. */
    static int nextControl(byte[] b, int p, int len) {
        int i = p;
        for (int last = len - 8; i <= last; i += 8) {
            long w = (long) LONGS.get(b, i);
            // the lowest flagged byte is always a true one: a borrow only runs up from a byte below 0x20
            long t = (w - 0x20 * ONES) & ~w & HIGH;
            if (t != 0) {
                return i + (Long.numberOfTrailingZeros(t) >>> 3);
            }
        }
        for (; i < len; i++) {
            if ((b[i] & 0xff) < 0x20) {
                return i;
            }
        }
        return len;
    }

    long truncatedLines() {
        return truncatedLines;
    }

    long lineNumber() {
        return lineNumber;
    }
}

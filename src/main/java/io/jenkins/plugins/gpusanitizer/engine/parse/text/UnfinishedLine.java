package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A sanitizer log's bytes without a record's line the tool did not finish: one that starts with the prefix and an
 * indent (an {@code at}, {@code by thread}, address or {@code Host Frame} line) and has no line end when the input
 * ends. A tool killed after its write grace leaves its buffer flushed anywhere, and such a line is cut anywhere:
 * {@code train_lstm.py:3} of {@code train_lstm.py:32}, an address short of its digits. It is left out
 * ({@link #leftOut}); a last line of any other kind (a summary saved without its line end) is kept.
 *
 * <p>Streams: holds back only the last line read so far while it may be such a line, and at most {@code maxLine}
 * bytes of it (a longer line is cut by the parser anyway, and said so). The parser's large reads go straight into
 * its own array: the bulk of a log is not copied once more (that copy cost the parser a tenth of its speed). Unlike
 * {@link InputStream#read(byte[], int, int)} promises, such a read may write past the count it returns (the line it
 * takes back); the parser's chunk holds nothing there, and no other reader is given this stream.
 */
final class UnfinishedLine extends InputStream {
    private static final int READ = 1 << 16;
    /** A read for at least this much more than the line held back goes into the caller's array. */
    private static final int DIRECT = 1 << 13;

    private final InputStream in;
    /** The prefix and two blanks: how a record's line begins. */
    private final byte[] recordStart;

    private final int maxLine;
    /** {@code buf[pos, ready)} may be handed out, {@code buf[ready, end)} is the line held back. */
    private byte[] buf;

    private int pos;
    private int ready;
    private int end;
    /** Where the line being read starts in {@link #buf}, while it is held back; -1 once it is handed out. */
    private int held;

    private boolean eof;
    private String leftOut;

    UnfinishedLine(InputStream in, String prefix, int maxLine) {
        this.in = in;
        this.recordStart = (prefix + "  ").getBytes(StandardCharsets.UTF_8);
        this.maxLine = maxLine;
        this.buf = new byte[READ];
    }

    /** The line left out (its start), once the input ended inside a record's line; else null. */
    String leftOut() {
        return leftOut;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
        if (len == 0) {
            return 0;
        }
        while (true) {
            if (pos < ready) {
                int n = Math.min(len, ready - pos);
                System.arraycopy(buf, pos, b, off, n);
                pos += n;
                return n;
            }
            if (eof) {
                return -1;
            }
            if (len - (end - pos) < DIRECT) {
                fill();
                continue;
            }
            int n = readDirect(b, off, len);
            if (n != 0) {
                return n;
            }
            // all that was read is the line held back: read on
        }
    }

    /**
     * A large read goes straight into the caller's array (no copy of the bulk of a log): the line held back first,
     * then what the input gives; its last line, if it may be a record's line, is taken back into {@link #buf}.
     *
     * @return the bytes handed out, -1 at the end, 0 when all of them were taken back
     */
    private int readDirect(byte[] b, int off, int len) throws IOException {
        int keep = end - pos;
        System.arraycopy(buf, pos, b, off, keep);
        int heldAt = held >= 0 ? off : -1;
        pos = 0;
        ready = 0;
        end = 0;
        held = -1;
        int n = in.read(b, off + keep, len - keep);
        if (n < 0) {
            eof = true;
            if (heldAt >= 0 && recordLine(b, heldAt, keep, true)) {
                leftOut = new String(b, heldAt, Math.min(keep, 200), StandardCharsets.UTF_8);
                return -1;
            }
            return keep > 0 ? keep : -1;
        }
        int total = off + keep + n;
        int lineStart = lineStart(b, off + keep, total);
        if (lineStart >= 0) {
            heldAt = lineStart;
        }
        if (heldAt < 0 || total - heldAt >= maxLine || !recordLine(b, heldAt, total - heldAt, false)) {
            return keep + n;
        }
        int h = total - heldAt;
        if (buf.length < h + READ) {
            buf = new byte[h + READ];
        }
        System.arraycopy(b, heldAt, buf, 0, h);
        end = h;
        held = 0;
        return heldAt - off;
    }

    private void fill() throws IOException {
        compact();
        int n = in.read(buf, end, buf.length - end);
        if (n < 0) {
            eof = true;
            if (held >= 0 && recordLine(buf, held, end - held, true)) {
                leftOut = new String(buf, held, Math.min(end - held, 200), StandardCharsets.UTF_8);
                end = held;
            }
            ready = end;
            return;
        }
        int from = end;
        end += n;
        int lineStart = lineStart(buf, from, end);
        if (lineStart >= 0) {
            held = lineStart; // a line begins: held back until it shows what it is
        }
        if (held >= 0 && (end - held >= maxLine || !recordLine(buf, held, end - held, false))) {
            held = -1;
        }
        ready = held >= 0 ? held : end;
    }

    /** Where the last line that begins in A[FROM, TO) begins (after its line end), -1 when none does. */
    private static int lineStart(byte[] a, int from, int to) {
        for (int i = to - 1; i >= from; i--) {
            if (a[i] == '\n' || a[i] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** Moves the bytes not yet handed out to the front, with room to read after them. */
    private void compact() {
        int keep = end - pos;
        if (buf.length - keep < READ) {
            byte[] bigger = new byte[keep + READ];
            System.arraycopy(buf, pos, bigger, 0, keep);
            buf = bigger;
        } else if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, keep);
        }
        if (held >= 0) {
            held -= pos;
        }
        ready -= pos;
        end = keep;
        pos = 0;
    }

    /** Whether the LEN bytes of A at FROM begin as a record's line: all of its beginning when WHOLE, else as far as read. */
    private boolean recordLine(byte[] a, int from, int len, boolean whole) {
        if (whole && len < recordStart.length) {
            return false;
        }
        for (int i = 0, n = Math.min(len, recordStart.length); i < n; i++) {
            if (a[from + i] != recordStart[i]) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() throws IOException {
        in.close();
    }
}

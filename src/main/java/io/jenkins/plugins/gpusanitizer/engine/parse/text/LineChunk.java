package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import java.util.Arrays;

/**
 * Whole lines of a log as the bytes read plus where each line starts and ends, filled by
 * {@link LineChunker}: the parser takes most lines as bytes and makes a String only of the few it
 * reads as text.
 */
final class LineChunk {
    /** As cut: no control byte but the line end, a line the byte-level checks may take. */
    static final byte PLAIN = 0;
    /** As cut: holds a NUL, ESC, tab or other control byte, or was cut short; read only as text. */
    static final byte CONTROL = 1;
    // the forms SanitizerLines reads lines into
    /** The line's text is in {@link #values}. */
    static final byte TEXT = 2;
    /** A prefix and blanks: the end of a record. */
    static final byte SEPARATOR = 3;
    /** A native host frame: from/to span its text after "Host Frame:", kept as bytes. */
    static final byte NATIVE_FRAME = 4;
    /** Another host frame: the Frame is in {@link #values}, null for the first half of the two-line form. */
    static final byte HOST_FRAME = 5;
    /** A record's {@code at} line: the {@link AtLine} is in {@link #values}, null when it did not match. */
    static final byte AT = 6;
    /** A line of the prefix indented by one blank at most, its text without prefix and blanks in {@link #values}. */
    static final byte HEADER = 7;
    /** A line of the prefix indented further, its text without prefix and blanks in {@link #values}. */
    static final byte DETAIL = 8;
    /** A record's {@code by thread} line: the {@link ThreadLine} is in {@link #values}. */
    static final byte THREAD = 9;

    final byte[] bytes;
    int lines;
    int[] from = new int[1024];
    int[] to = new int[1024];
    byte[] tag = new byte[1024];
    Object[] values = new Object[1024];
    /** The last chunk of the input. */
    boolean last;

    LineChunk(int capacity) {
        bytes = new byte[capacity];
    }

    void clear() {
        Arrays.fill(values, 0, lines, null);
        lines = 0;
        last = false;
    }

    void add(int start, int end, byte kind) {
        if (lines == from.length) {
            int n = lines * 2;
            from = Arrays.copyOf(from, n);
            to = Arrays.copyOf(to, n);
            tag = Arrays.copyOf(tag, n);
            values = Arrays.copyOf(values, n);
        }
        from[lines] = start;
        to[lines] = end;
        tag[lines] = kind;
        lines++;
    }

    /** Line i as text: ASCII with one copy and no decoding, anything else as UTF-8, malformed bytes replaced. */
    String text(int i) {
        return SanitizerLines.string(bytes, from[i], to[i]);
    }
}

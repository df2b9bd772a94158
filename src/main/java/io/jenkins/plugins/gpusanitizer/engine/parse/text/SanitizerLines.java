package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * Reads each line of a chunk into the form the text parser's state machine takes, doing there the
 * work that needs no state: the text of a line, a host frame parsed, an {@code at} line matched, a
 * native frame (the bulk of every log) recognised on its bytes and kept as bytes, no String made. On
 * the reader thread when the log is read ahead ({@link ChunkReader}), so that this work and the
 * state machine use one core each.
 *
 * <p>The tests are those of {@code TextLogState#line} on the line's text, made on its
 * bytes: only on lines without control bytes (no ESC, no NUL), whose text is their bytes, and only
 * with a plain ASCII prefix. Every other line goes to the state machine as text.
 */
final class SanitizerLines implements Consumer<LineChunk> {
    private static final byte[] HOST_FRAME = "Host Frame:".getBytes(StandardCharsets.US_ASCII);

    /** The prefix as bytes, or null when it is not plain ASCII. */
    private final byte[] prefix;

    private final LineCache<Frame> frames = new LineCache<>(FrameParser::parse);
    private final LineCache<AtLine> atLines = new LineCache<>(AtLine::parse);

    SanitizerLines(String prefix) {
        this.prefix = ascii(prefix) ? prefix.getBytes(StandardCharsets.US_ASCII) : null;
    }

    private static boolean ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch < 0x20 || ch >= 0x7f) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void accept(LineChunk c) {
        for (int i = 0, n = c.lines; i < n; i++) {
            if (c.tag[i] != LineChunk.PLAIN || prefix == null || !read(c, i)) {
                c.tag[i] = LineChunk.TEXT;
                c.values[i] = c.text(i);
            }
        }
    }

    /** Reads a plain line of the prefix into its form; false when it is to be read as text. */
    private boolean read(LineChunk c, int i) {
        byte[] b = c.bytes;
        int from = c.from[i];
        int to = c.to[i];
        int n = prefix.length;
        if (to - from < n) {
            return false;
        }
        if (!Arrays.equals(b, from, from + n, prefix, 0, n)) {
            return false;
        }
        int start = from + n;
        while (start < to && b[start] == ' ') {
            start++;
        }
        int end = to;
        while (end > start && (b[end - 1] & 0xff) <= ' ') {
            end--;
        }
        if (start == end) {
            c.tag[i] = LineChunk.SEPARATOR;
            return true;
        }
        if (start - from - n <= 1) {
            c.tag[i] = LineChunk.HEADER;
            c.values[i] = string(b, start, end);
            return true;
        }
        if (startsWith(b, start, end, HOST_FRAME)) {
            int rest = start + HOST_FRAME.length;
            if (holdsModuleMark(b, rest, end)) {
                c.tag[i] = LineChunk.NATIVE_FRAME;
                c.from[i] = rest;
                c.to[i] = end;
            } else {
                c.tag[i] = LineChunk.HOST_FRAME;
                c.values[i] = frames.apply(b, rest, end);
            }
            return true;
        }
        if (end - start > 3 && b[start] == 'a' && b[start + 1] == 't' && b[start + 2] == ' ') {
            c.tag[i] = LineChunk.AT;
            c.values[i] = atLines.apply(b, start, end);
            return true;
        }
        String text = string(b, start, end);
        ThreadLine thread = b[start] == 'b' ? ThreadLine.parse(text) : null;
        if (thread != null) {
            c.tag[i] = LineChunk.THREAD;
            c.values[i] = thread;
        } else {
            c.tag[i] = LineChunk.DETAIL;
            c.values[i] = text;
        }
        return true;
    }

    private static boolean startsWith(byte[] b, int from, int to, byte[] head) {
        return to - from >= head.length && Arrays.equals(b, from, from + head.length, head, 0, head.length);
    }

    /** Whether {@code "] in "} occurs in {@code [from, to)}: searched from the end, where the short module name is. */
    static boolean holdsModuleMark(byte[] b, int from, int to) {
        for (int i = to - 5; i >= from; i--) {
            if (b[i] == ']' && b[i + 1] == ' ' && b[i + 2] == 'i' && b[i + 3] == 'n' && b[i + 4] == ' ') {
                return true;
            }
        }
        return false;
    }

    /** The text of bytes without control bytes: what decoding the whole line and cutting it would give. */
    static String string(byte[] b, int from, int to) {
        for (int k = from; k < to; k++) {
            if (b[k] < 0) {
                return new String(b, from, to - from, StandardCharsets.UTF_8);
            }
        }
        return new String(b, from, to - from, StandardCharsets.ISO_8859_1);
    }
}

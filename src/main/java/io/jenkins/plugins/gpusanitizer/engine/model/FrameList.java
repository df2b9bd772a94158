package io.jenkins.plugins.gpusanitizer.engine.model;

import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.Function;

/**
 * A host stack whose native frames are parsed only when asked for. A log holds millions of native
 * frames, but grouping needs only a record's Python frames (parsed at once, they are few) unless
 * the record starts a new defect; so most native frames are never parsed. A native frame is kept as
 * its text or, from the text parser, as UTF-8 bytes in one array per record (no String per frame).
 * Immutable once built.
 */
public final class FrameList extends AbstractList<Frame> implements RandomAccess {
    private final String[] raw;
    private final byte[] text;
    /** Per frame, the start and end of its text in {@link #text}. */
    private final int[] spans;

    private final Frame[] parsed;
    private final Function<String, Frame> parser;
    private final List<Frame> python;

    private FrameList(
            String[] raw,
            byte[] text,
            int[] spans,
            Frame[] parsed,
            Function<String, Frame> parser,
            List<Frame> python) {
        this.raw = raw;
        this.text = text;
        this.spans = spans;
        this.parsed = parsed;
        this.parser = parser;
        this.python = python;
    }

    @Override
    public synchronized Frame get(int i) {
        Frame f = parsed[i];
        if (f == null) {
            String s = raw != null && raw[i] != null
                    ? raw[i]
                    : new String(text, spans[2 * i], spans[2 * i + 1] - spans[2 * i], StandardCharsets.UTF_8);
            f = parser.apply(s);
            parsed[i] = f == null ? Frame.nativeFrame(null, null, 0, null) : f;
            f = parsed[i];
        }
        return f;
    }

    @Override
    public int size() {
        return parsed.length;
    }

    /** The Python frames, innermost first, without parsing any native frame. */
    public List<Frame> pythonFrames() {
        return python;
    }

    /**
     * The bytes of native frames, for builders that follow one another (each built before the next
     * starts): collected in one buffer, and kept as the same array as a recent record's when equal.
     * The records of one defect have the same stack, so a log of many records keeps few arrays.
     */
    public static final class NativeTexts {
        private static final int SLOTS = 64;
        private static final int MAX_SHARED = 16 * 1024;
        private byte[] buffer = new byte[4096];
        private final byte[][] recent = new byte[SLOTS][];

        byte[] keep(byte[] text, int length) {
            if (length > MAX_SHARED) {
                return Arrays.copyOf(text, length);
            }
            int slot = (length ^ (length >>> 6)) & (SLOTS - 1);
            byte[] r = recent[slot];
            if (r != null && Arrays.equals(r, 0, r.length, text, 0, length)) {
                return r;
            }
            r = Arrays.copyOf(text, length);
            recent[slot] = r;
            return r;
        }
    }

    /** Collects frames in order: Python frames parsed now, native ones kept raw. Builds one list. */
    public static final class Builder {
        private final Function<String, Frame> parser;
        private Frame[] parsed = new Frame[32];
        private String[] raw;
        private byte[] text;
        private int textLength;
        private int[] spans;
        private List<Frame> python;
        private int size;

        private final NativeTexts texts;

        /** @param texts where the native frames' bytes are collected, shared by the builders of one parser; or null */
        public Builder(Function<String, Frame> parser, NativeTexts texts) {
            this.parser = parser;
            this.texts = texts;
        }

        public void addNative(String text) {
            slot();
            if (raw == null) {
                raw = new String[parsed.length];
            }
            raw[size++] = text;
        }

        /** A native frame whose text is UTF-8 bytes {@code [from, to)} of {@code bytes}: copied, decoded if looked at. */
        public void addNative(byte[] bytes, int from, int to) {
            slot();
            if (spans == null) {
                spans = new int[2 * parsed.length];
                text = texts != null ? texts.buffer : new byte[Math.max(1024, 16 * (to - from))];
            }
            int n = to - from;
            if (textLength + n > text.length) {
                text = Arrays.copyOf(text, Math.max(textLength + n, 2 * text.length));
            }
            System.arraycopy(bytes, from, text, textLength, n);
            if (texts != null) {
                texts.buffer = text;
            }
            spans[2 * size] = textLength;
            textLength += n;
            spans[2 * size + 1] = textLength;
            size++;
        }

        public void addParsed(Frame f) {
            slot();
            parsed[size++] = f;
            if (f.python()) {
                if (python == null) {
                    python = new ArrayList<>();
                }
                python.add(f);
            }
        }

        /** Puts {@code with} in place of the last frame when that is {@code last}; false otherwise. */
        public boolean replaceLast(Frame last, Frame with) {
            if (size == 0 || parsed[size - 1] != last) {
                return false;
            }
            parsed[size - 1] = with;
            return true;
        }

        /** Room for one more frame in every array in use. */
        private void slot() {
            if (size == parsed.length) {
                int n = 2 * size;
                parsed = Arrays.copyOf(parsed, n);
                if (raw != null) {
                    raw = Arrays.copyOf(raw, n);
                }
                if (spans != null) {
                    spans = Arrays.copyOf(spans, 2 * n);
                }
            }
        }

        public int size() {
            return size;
        }

        public FrameList build() {
            return new FrameList(
                    raw,
                    texts != null && text != null ? texts.keep(text, textLength) : text,
                    spans,
                    Arrays.copyOf(parsed, size),
                    parser,
                    python == null ? List.of() : List.copyOf(python));
        }
    }
}

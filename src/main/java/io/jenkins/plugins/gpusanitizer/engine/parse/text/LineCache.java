package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import java.util.Arrays;
import java.util.function.Function;

/**
 * What a pure function of a line's text gave the last time the same bytes were seen: a log repeats
 * the same Python frames and {@code at} lines in record after record, so most are parsed once.
 * Direct-mapped and bounded; one thread only.
 */
final class LineCache<T> {
    private static final int SLOTS = 4096;
    private static final int MAX_KEY = 512;
    private static final Object NULL = new Object();

    private final Function<String, T> function;
    private final byte[][] keys = new byte[SLOTS][];
    private final Object[] values = new Object[SLOTS];

    LineCache(Function<String, T> function) {
        this.function = function;
    }

    /** {@code function} of the text of bytes {@code [from, to)}, which hold no control byte. */
    @SuppressWarnings("unchecked")
    T apply(byte[] b, int from, int to) {
        if (to - from > MAX_KEY) {
            return function.apply(SanitizerLines.string(b, from, to));
        }
        int h = 0;
        for (int i = from; i < to; i++) {
            h = 31 * h + b[i];
        }
        int slot = (h ^ (h >>> 12)) & (SLOTS - 1);
        byte[] key = keys[slot];
        if (key != null && Arrays.equals(key, 0, key.length, b, from, to)) {
            Object v = values[slot];
            return v == NULL ? null : (T) v;
        }
        T v = function.apply(SanitizerLines.string(b, from, to));
        keys[slot] = Arrays.copyOfRange(b, from, to);
        values[slot] = v == null ? NULL : v;
        return v;
    }
}

package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.AbstractList;
import java.util.ArrayList;
import java.util.List;
import java.util.RandomAccess;
import java.util.function.Function;

/**
 * A host stack whose native frames are parsed only when asked for. A log holds millions of native
 * frames, but grouping needs only a record's Python frames (parsed at once, they are few) unless
 * the record starts a new defect; so most native frames are never parsed. Immutable once built.
 */
public final class FrameList extends AbstractList<Frame> implements RandomAccess {
    private final String[] raw;
    private final Frame[] parsed;
    private final Function<String, Frame> parser;
    private final List<Frame> python;

    private FrameList(String[] raw, Frame[] parsed, Function<String, Frame> parser, List<Frame> python) {
        this.raw = raw;
        this.parsed = parsed;
        this.parser = parser;
        this.python = python;
    }

    @Override
    public synchronized Frame get(int i) {
        Frame f = parsed[i];
        if (f == null) {
            f = parser.apply(raw[i]);
            parsed[i] = f == null ? Frame.nativeFrame(null, null, 0, null) : f;
            f = parsed[i];
        }
        return f;
    }

    @Override
    public int size() {
        return raw.length;
    }

    /** The Python frames, innermost first, without parsing any native frame. */
    public List<Frame> pythonFrames() {
        return python;
    }

    /** Collects frames in order: Python frames parsed now, native ones kept raw. */
    public static final class Builder {
        private final List<String> raw = new ArrayList<>();
        private final List<Frame> parsed = new ArrayList<>();
        private final List<Frame> python = new ArrayList<>();
        private final Function<String, Frame> parser;

        public Builder(Function<String, Frame> parser) {
            this.parser = parser;
        }

        public void addNative(String text) {
            raw.add(text);
            parsed.add(null);
        }

        public void addParsed(Frame f) {
            raw.add(null);
            parsed.add(f);
            if (f.python()) {
                python.add(f);
            }
        }

        public int size() {
            return raw.size();
        }

        public FrameList build() {
            return new FrameList(raw.toArray(String[]::new), parsed.toArray(Frame[]::new), parser, List.copyOf(python));
        }
    }
}

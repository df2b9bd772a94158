package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.FrameList;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;

/** Collects the parts of one record while a parser reads it; bounded in frames and detail text. */
final class RecordBuilder {
    private static final int MAX_NATIVE_FRAMES = 64;
    private static final int MAX_PYTHON_FRAMES = 32;
    private static final int MAX_DETAIL = 1024;

    Tool tool;
    Kind kind;
    String message;
    String kernel;
    String pc;
    SourceLocation deviceLocation;
    String thread;
    String block;
    boolean severityError = true;
    private final StringBuilder detail = new StringBuilder();
    private final FrameList.Builder frames;
    private int nativeFrames;
    private int pythonFrames;
    int droppedFrames;

    RecordBuilder(Tool tool, Kind kind, String message) {
        this(tool, kind, message, null);
    }

    /** @param texts shared by the builders of one parser, each built before the next starts; or null */
    RecordBuilder(Tool tool, Kind kind, String message, FrameList.NativeTexts texts) {
        this.tool = tool;
        this.kind = kind;
        this.message = message;
        this.frames = new FrameList.Builder(FrameParser::parse, texts);
    }

    void addDetail(String text) {
        if (detail.length() < MAX_DETAIL) {
            if (detail.length() > 0) {
                detail.append(' ');
            }
            detail.append(text, 0, Math.min(text.length(), MAX_DETAIL - detail.length()));
        }
    }

    void addFrame(Frame frame) {
        boolean python = frame.python();
        if (python ? pythonFrames++ < MAX_PYTHON_FRAMES : nativeFrames++ < MAX_NATIVE_FRAMES) {
            frames.addParsed(frame);
        } else {
            droppedFrames++;
        }
    }

    /** The last frame, read again with what the next line added; false when it is not the last one kept. */
    boolean replaceLastFrame(Frame last, Frame with) {
        return nativeFrames <= MAX_NATIVE_FRAMES && frames.replaceLast(last, with);
    }

    /** A native frame's text, parsed only if someone looks at it (see FrameList). */
    void addNativeFrame(String text) {
        if (nativeFrames++ < MAX_NATIVE_FRAMES) {
            frames.addNative(text);
        } else {
            droppedFrames++;
        }
    }

    /** A native frame whose text is the UTF-8 bytes {@code [from, to)}: copied, decoded and parsed only if looked at. */
    void addNativeFrame(byte[] bytes, int from, int to) {
        if (nativeFrames++ < MAX_NATIVE_FRAMES) {
            frames.addNative(bytes, from, to);
        } else {
            droppedFrames++;
        }
    }

    SanitizerRecord build() {
        return new SanitizerRecord(
                tool,
                kind,
                message,
                kernel,
                pc,
                deviceLocation,
                thread,
                block,
                detail.length() == 0 ? null : detail.toString(),
                frames.build(),
                severityError);
    }
}

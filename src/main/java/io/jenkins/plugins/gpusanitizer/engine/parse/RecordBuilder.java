package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.ArrayList;
import java.util.List;

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
    private final List<Frame> nativeFrames = new ArrayList<>();
    private final List<Frame> pythonFrames = new ArrayList<>();
    private final List<Frame> order = new ArrayList<>();
    int droppedFrames;

    RecordBuilder(Tool tool, Kind kind, String message) {
        this.tool = tool;
        this.kind = kind;
        this.message = message;
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
        List<Frame> bucket = frame.python() ? pythonFrames : nativeFrames;
        int max = frame.python() ? MAX_PYTHON_FRAMES : MAX_NATIVE_FRAMES;
        if (bucket.size() < max) {
            bucket.add(frame);
            order.add(frame);
        } else {
            droppedFrames++;
        }
    }

    SanitizerRecord build() {
        return new SanitizerRecord(tool, kind, message, kernel, pc, deviceLocation, thread, block,
                detail.length() == 0 ? null : detail.toString(), order, severityError);
    }
}

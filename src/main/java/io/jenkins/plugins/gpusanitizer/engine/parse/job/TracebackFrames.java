package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The frames of one Python traceback as it is read: each {@code File "...", line N, in f} line
 * with the source line Python prints under it. Only the innermost {@link #MAX_FRAMES} are kept: they
 * name the fault, and a deep recursion prints 100,000 frames.
 */
final class TracebackFrames {
    private static final int MAX_FRAMES = 200;
    private static final Pattern FRAME = Pattern.compile("^\\s*File \"(.+)\", line (\\d+), in (.+)$");

    /** Outermost first. */
    private final List<SourceLocation> frames = new ArrayList<>();
    /** The innermost user frame dropped from {@link #frames}, or null. */
    private SourceLocation droppedUser;

    private SourceLocation lastFrame;
    private String lastFrameCode;

    /** @return whether the line was a frame line or the source line under one */
    boolean line(String line) {
        Matcher f = FRAME.matcher(line);
        if (f.matches()) {
            flush();
            lastFrame = SourceLocation.of(
                    f.group(1), FrameParser.parseInt(f.group(2)), f.group(3).trim());
            lastFrameCode = null;
            return true;
        }
        if (line.startsWith("    ") && lastFrame != null) {
            String code = line.trim();
            // the first source line only; the ^~~~ markers under it are not code
            if (lastFrameCode == null
                    && !code.isEmpty()
                    && !code.chars().allMatch(c -> c == '^' || c == '~' || c == ' ')) {
                lastFrameCode = code.length() > 300 ? code.substring(0, 300) : code;
            }
            return true;
        }
        return false;
    }

    /** Adds the frame being read (its source line may follow it) to the frames. */
    void flush() {
        if (lastFrame != null) {
            if (frames.size() == MAX_FRAMES) {
                // drop the outermost: the innermost frames name the fault (a 100,000-frame recursion)
                SourceLocation dropped = frames.remove(0);
                if (FrameOrigin.isUserFile(dropped.file())) {
                    droppedUser = dropped;
                }
            }
            frames.add(new SourceLocation(lastFrame.file(), lastFrame.line(), lastFrame.function(), lastFrameCode));
            lastFrame = null;
            lastFrameCode = null;
        }
    }

    /**
     * The frames, outermost first, once the exception line ended the traceback. When every kept frame
     * is library code, the innermost user frame dropped is put back in front: the user's line is what
     * the report is for.
     */
    List<SourceLocation> frames() {
        if (droppedUser != null && FrameOrigin.userFrameIndex(frames) < 0) {
            frames.add(0, droppedUser);
        }
        return frames;
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerOptions;
import java.util.List;

/**
 * compute-sanitizer's launch window ({@code --launch-skip N}, {@code --launch-count M}, {@code -s}, {@code -c}): a
 * user's {@code --sanitizer-arg} that checks only some of the job's kernel launches. The rest run unchecked, so a PASS
 * of such a run is not a full check and the report says which launches were checked (issue #49: the verdict says
 * which mode ran).
 *
 * <p>Read from the sanitizer's own options only (SanitizerOptions): a job's own {@code --launch-count} is the job's.
 */
final class LaunchWindow {
    /** The reason's code (info). */
    static final String CODE = "launch-window";

    private LaunchWindow() {}

    /** The sentence for a sanitizer run's command with a launch window, or null: every launch was checked. */
    static String unchecked(String phaseName, List<String> command) {
        if (command == null || command.isEmpty()) {
            return null;
        }
        SanitizerOptions.Window window = SanitizerOptions.window(command);
        Long skip = window.skip();
        Long count = window.count();
        boolean skipped = skip != null && skip > 0;
        boolean counted = count != null && count > 0;
        String tail = "; a pass is not a full check";
        if (skipped && counted) {
            return phaseName + " checked only kernel launches " + (skip + 1) + " to " + (skip + count)
                    + " (--launch-skip " + skip + " --launch-count " + count + "): the first " + skip
                    + " and every launch after " + (skip + count) + " ran unchecked" + tail;
        }
        if (counted) {
            return phaseName + " checked only the first " + count + " kernel launches (--launch-count " + count
                    + "): every later launch ran unchecked" + tail;
        }
        if (skipped) {
            return phaseName + " did not check the first " + skip + " kernel launches (--launch-skip " + skip
                    + "): they ran unchecked" + tail;
        }
        return null;
    }
}

package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The messages compute-sanitizer prints about itself, without prefix, when it could not run the
 * target at all (an unknown option, an unsupported device...). Only a short file of them without any
 * banner is the tool's refusal, an output of its own; anywhere else such lines are the application's.
 */
final class ToolRefusal {
    private static final Pattern TOOL_ERROR_NO_BANNER = Pattern.compile(
            "^(?:--\\S+ was enabled but .*|(?:Error: )?[Uu]nrecognized option.*|.*: extra \\S+ detected.*|Error: .*|"
                    + ".*[Dd]evice not supported.*|.*No attachable process.*)$");
    /** A file without banner is taken as the tool's own refusal only when it is this short. */
    private static final int MAX_LINES_OF_REFUSAL = 20;

    private static final int MAX_MESSAGES = 3;

    private final List<String> messages = new ArrayList<>();

    /** A line without prefix, read before any banner: kept when it is one of the tool's messages. */
    void offer(String line) {
        if (messages.size() < MAX_MESSAGES && TOOL_ERROR_NO_BANNER.matcher(line).matches()) {
            messages.add(line.trim());
        }
    }

    /**
     * The refusal as the output of the file, or null when the file is not one.
     *
     * @param anyBanner whether the file holds a banner: then the tool ran
     */
    SanitizerOutput output(Path name, Tool hint, boolean anyBanner, long lineCount) {
        if (anyBanner || messages.isEmpty() || lineCount > MAX_LINES_OF_REFUSAL) {
            return null;
        }
        return new SanitizerOutput(
                name.toString(),
                "text",
                hint == null ? Tool.MEMCHECK : hint,
                hint != null,
                false,
                0,
                null,
                null,
                null,
                null,
                false,
                false,
                messages,
                false,
                List.of("no compute-sanitizer banner: the tool refused to run"),
                null);
    }
}

package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * compute-sanitizer's own options in a sanitizer run's recorded command ({@code compute-sanitizer --tool memcheck
 * ... python3 train.py ...}): they end at the job's command, the first word that is neither an option nor an
 * option's value, so a job's own {@code --launch-count} or {@code --kernel-name} after it is the job's. One reading
 * for every sentence about what the tool was told (the runner's LaunchWindow, VendorKernels, InitcheckKernelFilter) and
 * for the report's kernel coverage.
 */
public final class SanitizerOptions {
    /**
     * compute-sanitizer's options that take no value (its manual's "N/A" rows, 2025.x): the word after them is the next
     * option or the job's command. An option not named here is read as taking the next word when that is no option.
     */
    private static final Set<String> FLAGS = Set.of(
            "--xml",
            "--check-cache-control",
            "--check-optix",
            "--check-optix-leaks",
            "--detect-missing-module-unload",
            "--dump-kernel-launches",
            "--force-blocking-launches",
            "--generate-coredump",
            "--help",
            "-h",
            "--ignore-getprocaddress-notfound",
            "--kill",
            "--print-session-details",
            "--quiet",
            "-q",
            "--save-session-details",
            "--support-32bit",
            "--track-unused-memory",
            "--version",
            "-v");

    /**
     * One option as given: {@code --name=value}, {@code --name value}, or a flag (value null); {@code text} is the
     * word or the two words as the command has them, for a sentence.
     */
    public record Option(String name, String value, String text) {}

    private SanitizerOptions() {}

    /** The options between the tool's path (the first word) and the job's command; empty for no command. */
    public static List<Option> of(List<String> command) {
        List<Option> options = new ArrayList<>();
        if (command == null) {
            return options;
        }
        for (int i = 1; i < command.size(); i++) {
            String arg = command.get(i);
            if (arg == null || !arg.startsWith("-")) {
                break; // the job's command
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq >= 0 ? arg.substring(eq + 1) : null;
            String text = arg;
            boolean takesNext = eq < 0 && !FLAGS.contains(arg) && i + 1 < command.size();
            if (value == null
                    && takesNext
                    && command.get(i + 1) != null
                    && !command.get(i + 1).startsWith("-")) {
                value = command.get(++i);
                text = arg + " " + value;
            }
            options.add(new Option(name, value, text));
        }
        return options;
    }

    /**
     * The launch window the tool was told ({@code --launch-skip N} / {@code -s N}, {@code --launch-count M} /
     * {@code -c M}): the last value of each, null where it was not given or was no number; {@code unparsable} holds
     * the options whose value was no number, as given.
     */
    public record Window(Long skip, Long count, List<String> unparsable) {}

    /** The command's launch window; both null for a command that checks every launch. */
    public static Window window(List<String> command) {
        Long skip = null;
        Long count = null;
        List<String> unparsable = new ArrayList<>();
        for (Option o : of(command)) {
            boolean isSkip = o.name().equals("--launch-skip") || o.name().equals("-s");
            boolean isCount = o.name().equals("--launch-count") || o.name().equals("-c");
            if (!isSkip && !isCount) {
                continue;
            }
            Long value = number(o.value());
            if (value == null) {
                unparsable.add(o.text());
            }
            if (isSkip) {
                skip = value;
            } else {
                count = value;
            }
        }
        return new Window(skip, count, List.copyOf(unparsable));
    }

    private static Long number(String value) {
        try {
            return value == null ? null : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** The tool the command ran ({@code --tool X}), or null. */
    public static String tool(List<String> command) {
        for (Option o : of(command)) {
            if (o.name().equals("--tool")) {
                return o.value();
            }
        }
        return null;
    }
}

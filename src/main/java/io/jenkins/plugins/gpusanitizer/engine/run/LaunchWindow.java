package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.List;
import java.util.Set;

/**
 * compute-sanitizer's launch window ({@code --launch-skip N}, {@code --launch-count M}, {@code -s}, {@code -c}): a
 * user's {@code --sanitizer-arg} that checks only some of the job's kernel launches. The rest run unchecked, so a PASS
 * of such a run is not a full check and the report says which launches were checked (issue #49: the verdict says
 * which mode ran).
 *
 * <p>Read from the sanitizer's own options only: they end at the job's command, the first word that is neither an
 * option nor an option's value; a job's own {@code --launch-count} after it is the job's.
 */
final class LaunchWindow {
    /** compute-sanitizer options this gate passes that take no value: the word after them is the next option. */
    private static final Set<String> FLAGS = Set.of("--xml");

    /** The reason's code (info). */
    static final String CODE = "launch-window";

    private LaunchWindow() {}

    /** The sentence for a sanitizer run's command with a launch window, or null: every launch was checked. */
    static String unchecked(String phaseName, List<String> command) {
        if (command == null || command.isEmpty()) {
            return null;
        }
        Long skip = null;
        Long count = null;
        for (int i = 1; i < command.size(); i++) {
            String arg = command.get(i);
            if (arg == null || !arg.startsWith("-")) {
                break; // the job's command
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq >= 0 ? arg.substring(eq + 1) : null;
            boolean takesNext = eq < 0 && !FLAGS.contains(arg) && i + 1 < command.size();
            if (value == null && takesNext && !command.get(i + 1).startsWith("-")) {
                value = command.get(++i);
            }
            if (name.equals("--launch-skip") || name.equals("-s")) {
                skip = number(value);
            } else if (name.equals("--launch-count") || name.equals("-c")) {
                count = number(value);
            }
        }
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

    private static Long number(String value) {
        try {
            return value == null ? null : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return null;
        }
    }
}

package io.jenkins.plugins.gpusanitizer.engine.gate;

import java.util.Locale;

/** What a kind of finding does to the verdict. */
public enum Action {
    FAIL,
    UNSTABLE,
    IGNORE;

    /** @throws IllegalArgumentException "expected fail, unstable or ignore, got 'x'" */
    public static Action parse(String s) {
        try {
            return valueOf(s.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("expected fail, unstable or ignore, got '" + s + "'");
        }
    }

    /**
     * Parses {@code TOOL=ACTION} (e.g. {@code initcheck=fail}), the form the CLI and the step share.
     *
     * @throws IllegalArgumentException with a one-line message
     */
    public static java.util.Map.Entry<io.jenkins.plugins.gpusanitizer.engine.model.Tool, Action> parseToolAction(
            String spec) {
        int eq = spec.indexOf('=');
        var tool = eq > 0
                ? io.jenkins.plugins.gpusanitizer.engine.model.Tool.fromId(spec.substring(0, eq))
                : java.util.Optional.<io.jenkins.plugins.gpusanitizer.engine.model.Tool>empty();
        if (tool.isEmpty()) {
            throw new IllegalArgumentException(
                    "expected TOOL=fail|unstable|ignore with TOOL memcheck, racecheck, initcheck or synccheck, got '"
                            + spec + "'");
        }
        return java.util.Map.entry(tool.get(), parse(spec.substring(eq + 1)));
    }
}

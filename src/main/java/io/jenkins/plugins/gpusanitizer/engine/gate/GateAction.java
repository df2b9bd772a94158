package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** What a kind of finding does to the verdict. */
public enum GateAction {
    FAIL,
    UNSTABLE,
    IGNORE;

    /** @throws IllegalArgumentException "expected fail, unstable or ignore, got 'x'" */
    public static GateAction parse(String s) {
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
    public static Map.Entry<Tool, GateAction> parseToolAction(String spec) {
        int eq = spec.indexOf('=');
        Optional<Tool> tool = eq > 0 ? Tool.fromId(spec.substring(0, eq)) : Optional.empty();
        if (tool.isEmpty()) {
            throw new IllegalArgumentException(
                    "expected TOOL=fail|unstable|ignore with TOOL memcheck, racecheck, initcheck or synccheck, got '"
                            + spec + "'");
        }
        return Map.entry(tool.get(), parse(spec.substring(eq + 1)));
    }
}

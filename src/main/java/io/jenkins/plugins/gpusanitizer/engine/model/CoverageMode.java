package io.jenkins.plugins.gpusanitizer.engine.model;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How much of the job the sanitizer run checks (issue #49; {@code --coverage}, the step's {@code sanitizerCoverage}).
 * Either way every launch the sanitizer run makes is checked: compute-sanitizer's launch filters leave launches
 * unchecked but still slow, and on the H100 a job whose launches ran unchecked ran out of memory under the tool
 * (docs/how-it-works.md), so neither mode uses them.
 */
public enum CoverageMode {
    /**
     * The default: the sanitizer run ends once the job has launched every kernel the plain run (the blocking run)
     * launched, one optimizer step (or backward pass) after the step by which the plain run had launched them all; it
     * runs to its end when the plain run launched new kernels until its last step or after it.
     */
    KERNELS("kernels"),
    /** The whole job under the tool, every launch of it. */
    FULL("full");

    private final String id;

    CoverageMode(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The mode named {@code value}, or an IllegalArgumentException whose message is one line naming the choices. */
    public static CoverageMode of(String value, String option) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(m -> m.id.equals(v))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(option + " '" + value + "': use one of "
                        + Arrays.stream(values()).map(CoverageMode::id).collect(Collectors.joining(", "))));
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.Locale;
import java.util.Optional;

/** The three ways the job is run. */
public enum Phase {
    /** single GPU under compute-sanitizer (one run per tool). */
    SANITIZER,
    /** CUDA_LAUNCH_BLOCKING=1: the traceback names the faulting launch. */
    BLOCKING,
    /** no debugging variables, 2x the reference failure time, memory sampled beside it. */
    REGRESSION;

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Optional<Phase> fromId(String s) {
        for (Phase p : values()) {
            if (p.id().equalsIgnoreCase(s.trim())) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}

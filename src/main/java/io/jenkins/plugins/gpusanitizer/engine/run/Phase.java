package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.List;
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

    /** The debugging variables the blocking and regression phases control (set or removed). */
    static final List<String> DEBUG_VARIABLES = List.of(
            "CUDA_LAUNCH_BLOCKING",
            "PYTORCH_NO_CUDA_MEMORY_CACHING",
            "PYTORCH_USE_CUDA_DSA",
            "TORCH_USE_CUDA_DSA",
            "PYTORCH_CUDA_DSA_STACKTRACING");

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

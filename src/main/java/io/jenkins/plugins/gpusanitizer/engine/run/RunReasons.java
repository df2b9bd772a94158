package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * What only the runner saw (the environment, the memory sampler, the probe switched off): reasons
 * added to the analysis of the run directory. Phases on several GPUs add to it at once.
 */
final class RunReasons {
    private final List<Reason> reasons = new ArrayList<>();

    synchronized void add(Reason reason) {
        reasons.add(reason);
    }

    /** Adds the reason unless one with the same code is already there (said once per run). */
    synchronized void addOnce(Reason reason) {
        if (reasons.stream().noneMatch(existing -> existing.code().equals(reason.code()))) {
            reasons.add(reason);
        }
    }

    synchronized List<Reason> list() {
        return List.copyOf(reasons);
    }
}

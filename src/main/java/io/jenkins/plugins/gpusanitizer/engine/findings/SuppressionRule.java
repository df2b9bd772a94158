package io.jenkins.plugins.gpusanitizer.engine.findings;

import java.util.List;

/** Decides whether a defect is known noise. Suppressed defects are still reported, with the rule. */
public interface SuppressionRule {
    String id();

    /** Why it suppresses, in words a user can check against the defect. */
    String reason();

    /**
     * @param defect  the candidate
     * @param sameRun all defects of the same sanitizer run (some rules look at what else happened)
     */
    boolean matches(Defect defect, List<Defect> sameRun);
}

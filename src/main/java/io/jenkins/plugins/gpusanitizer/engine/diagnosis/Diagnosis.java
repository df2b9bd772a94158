package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;

/**
 * What the phases say together.
 *
 * @param reportedAt    where the normal (asynchronous) run reported the error: often an innocent line
 * @param faultAt       where the fault really is: the blocking run's line, else the sanitizer's launch site
 * @param faultEvidence {@code blocking}, {@code sanitizer} or {@code blocking+sanitizer}; {@code blocking-probe} when the
 *                      blocking run's traceback was lost and the probe saw the call that raised the error
 * @param summary       one sentence for the build page
 * @param notes         further findings, most important first
 */
public record Diagnosis(
        SourceLocation reportedAt, SourceLocation faultAt, String faultEvidence, String summary, List<String> notes) {
    public Diagnosis {
        notes = List.copyOf(notes);
    }
}

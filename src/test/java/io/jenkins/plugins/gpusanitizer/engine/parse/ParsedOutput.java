package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import java.util.List;

/** What a compute-sanitizer parser gives for one file: its output and the records it sent to the sink. */
public record ParsedOutput(SanitizerOutput output, List<SanitizerRecord> records) {
    public SanitizerRecord get(int i) {
        return records.get(i);
    }
}

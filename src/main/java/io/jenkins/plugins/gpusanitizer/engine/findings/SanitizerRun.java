package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.util.List;

/**
 * One sanitizer run as the gate sees it: its text output (summary, tool status), its XML (records
 * with full paths) when both exist, and the defects grouped from whichever held the records.
 *
 * @param tool        the tool
 * @param text        the text output, or null when only XML was given
 * @param xml         the XML output, or null
 * @param recordsFrom {@code xml} or {@code text}: where the defects come from
 * @param defects     grouped, with suppressions applied
 * @param overflowRecords records dropped beyond the distinct-defect cap
 * @param overflowUnsuppressedRecords of those, the records of defects no suppression rule covers
 * @param cachingAllocator whether this run kept PyTorch's caching allocator, or null when unknown
 */
public record SanitizerRun(
        Tool tool,
        SanitizerOutput text,
        SanitizerOutput xml,
        String recordsFrom,
        List<Defect> defects,
        long overflowRecords,
        long overflowUnsuppressedRecords,
        Boolean cachingAllocator) {
    public SanitizerRun {
        defects = List.copyOf(defects);
    }

    public SanitizerRun(
            Tool tool,
            SanitizerOutput text,
            SanitizerOutput xml,
            String recordsFrom,
            List<Defect> defects,
            long overflowRecords,
            long overflowUnsuppressedRecords) {
        this(tool, text, xml, recordsFrom, defects, overflowRecords, overflowUnsuppressedRecords, null);
    }

    /** The output that speaks for the run's status: the text when present (the XML has no summary). */
    public SanitizerOutput primary() {
        return text != null ? text : xml;
    }

    public Long errorsTotal() {
        return text == null ? null : text.errorsTotal();
    }

    public long recordsParsed() {
        return defects.stream().mapToLong(Defect::records).sum() + overflowRecords;
    }

    public List<Defect> unsuppressed() {
        return defects.stream().filter(d -> !d.suppressed()).toList();
    }
}

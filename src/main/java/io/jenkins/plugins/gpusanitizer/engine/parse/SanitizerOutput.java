package io.jenkins.plugins.gpusanitizer.engine.parse;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.List;

/**
 * What one compute-sanitizer output says about its run, beside the records: the summary counts and
 * every sign that the tool did not do its job. {@code errorsTotal} is null when the output has no
 * summary (the XML never has one; a killed tool leaves none in the text).
 *
 * @param source            the file it was read from
 * @param format            {@code text} or {@code xml}
 * @param tool              the tool, detected from the content or given
 * @param toolDetected      false when the content did not say which tool ran
 * @param banner            the {@code COMPUTE-SANITIZER} banner was seen
 * @param recordsParsed     records found
 * @param errorsTotal       {@code ERROR SUMMARY: N errors} (or racecheck's error count)
 * @param errorsNotPrinted  {@code N errors were not printed}
 * @param warningsTotal     racecheck warnings, or null
 * @param leakSummary       the LEAK SUMMARY line, or null
 * @param targetReturnedError {@code Target application returned an error}
 * @param appCrashed        {@code Error: process didn't terminate successfully}
 * @param toolFailures      lines saying the tool failed (never started, could not attach, internal error)
 * @param complete          the output ended the way a finished run ends (summary / closing tag)
 * @param problems          parse problems (truncation, cut lines); empty when clean
 * @param unreadableSummary the summary line when its count could not be read (too large, empty, not a
 *                          number): the count is then unknown ({@code errorsTotal} null); else null
 */
public record SanitizerOutput(
        String source,
        String format,
        Tool tool,
        boolean toolDetected,
        boolean banner,
        long recordsParsed,
        Long errorsTotal,
        Long errorsNotPrinted,
        Long warningsTotal,
        String leakSummary,
        boolean targetReturnedError,
        boolean appCrashed,
        List<String> toolFailures,
        boolean complete,
        List<String> problems,
        String unreadableSummary) {
    public SanitizerOutput {
        toolFailures = List.copyOf(toolFailures);
        problems = List.copyOf(problems);
    }
}

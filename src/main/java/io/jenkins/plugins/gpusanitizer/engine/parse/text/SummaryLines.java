package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The counts of the lines that close a run: {@code ERROR SUMMARY: N errors}, the line
 * {@code N errors were not printed ...} that starts the same way, and racecheck's
 * {@code RACECHECK SUMMARY}. Only read here: what they do to the runs of a log is
 * {@link TextLogState}'s. A few per log, so a record each costs nothing.
 */
final class SummaryLines {
    private static final Pattern ERROR_SUMMARY = Pattern.compile("^ERROR SUMMARY: ([\\d,]+) errors?(.*)$");
    private static final String NOT_PRINTED =
            " were not printed. Use --print-limit option to adjust the number of printed errors";
    private static final Pattern RACECHECK_SUMMARY = Pattern.compile(
            "^RACECHECK SUMMARY: ([\\d,]+) hazards? displayed \\(([\\d,]+) errors?, ([\\d,]+) warnings?\\)");

    private SummaryLines() {}

    /**
     * An {@code ERROR SUMMARY:} line.
     *
     * @param count the errors, -1 when too large, empty or not a number
     * @param notPrinted the line counts the errors not printed (beyond {@code --print-limit}), not all
     */
    record ErrorSummary(long count, boolean notPrinted) {
        static ErrorSummary parse(String text) {
            Matcher m = ERROR_SUMMARY.matcher(text);
            long n = m.matches() ? FrameParser.parseLong(m.group(1)) : -1;
            // "N errors were not printed. Use --print-limit ..." cut off in the middle (a killed tool) is
            // still that line, not a second run's summary
            boolean notPrinted = text.contains("not printed")
                    || (n >= 0 && !m.group(2).isEmpty() && NOT_PRINTED.startsWith(m.group(2)));
            return new ErrorSummary(n, notPrinted);
        }
    }

    /** A {@code RACECHECK SUMMARY:} line's errors and warnings; null when either is unreadable. */
    record RacecheckSummary(long errors, long warnings) {
        static RacecheckSummary parse(String text) {
            Matcher m = RACECHECK_SUMMARY.matcher(text);
            long errors = m.find() ? FrameParser.parseLong(m.group(2)) : -1;
            long warnings = errors < 0 ? -1 : FrameParser.parseLong(m.group(3));
            return errors < 0 || warnings < 0 ? null : new RacecheckSummary(errors, warnings);
        }
    }
}

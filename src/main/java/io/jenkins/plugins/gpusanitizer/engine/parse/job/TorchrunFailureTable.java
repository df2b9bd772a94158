package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * torchrun's (elastic's) failure table under its {@code ChildFailedError}, from its first
 * {@code ====} border to its last: a {@code [N]:} section per failed worker with its rank, exit code
 * and traceback (indented, when the worker recorded one), the "Root Cause (first observed failure)"
 * section naming the worker that failed first.
 */
final class TorchrunFailureTable {
    private static final Pattern TABLE_ENTRY = Pattern.compile("^\\[(\\d+)\\]:\\s*$");
    private static final Pattern TABLE_RANK = Pattern.compile("^\\s+rank\\s*: (\\d+)(?: \\(local_rank: (\\d+)\\))?");
    private static final Pattern TABLE_EXIT = Pattern.compile("^\\s+exitcode\\s*: (-?\\d+)");
    private static final Pattern TABLE_TRACEBACK = Pattern.compile("^\\s+traceback\\s*: (.*)$");

    private final LauncherReport report;
    private final JobOutput job;
    private int borders;
    private boolean rootSection;
    private Integer entryRank;
    /** The worker traceback the table quotes, being read. */
    private ProcessOutput traceback;
    /** Its last border, or a traceback after it. */
    private boolean ended;

    TorchrunFailureTable(LauncherReport report, JobOutput job) {
        this.report = report;
        this.job = job;
    }

    boolean ended() {
        return ended;
    }

    /** @return whether the line was the table's */
    boolean line(String line) {
        if (line.startsWith("Traceback (most recent call last):")) {
            ended = true;
            return false;
        }
        if (traceback != null) {
            if (line.startsWith("  ")) {
                traceback.line(line.substring(2));
                return true;
            }
            traceback.endTraceback();
            traceback = null;
        }
        if (line.startsWith("=====")) {
            if (++borders >= 2) {
                ended = true;
            }
            return true;
        }
        if (line.startsWith("Root Cause (first observed failure)")) {
            rootSection = true;
            return true;
        }
        Matcher m = TABLE_ENTRY.matcher(line);
        if (m.matches()) {
            entryRank = null;
            return true;
        }
        m = TABLE_RANK.matcher(line);
        if (m.find()) {
            entryRank = FrameParser.parseInt(m.group(1));
            if (rootSection) {
                report.root = entryRank;
            }
            return true;
        }
        m = TABLE_EXIT.matcher(line);
        if (m.find()) {
            if (rootSection && report.detail == null) {
                report.detail = "exit code " + m.group(1);
            }
            return true;
        }
        m = TABLE_TRACEBACK.matcher(line);
        if (m.find()) {
            String rest = m.group(1);
            if (rest.startsWith("Traceback (most recent call last):")
                    && entryRank != null
                    && !report.tableTracebacks.containsKey(entryRank)
                    && report.tableTracebacks.size() < JobOutput.MAX_RANKS) {
                traceback = new ProcessOutput(entryRank, job);
                traceback.line(rest);
                report.tableTracebacks.put(entryRank, traceback);
            } else if (rootSection && rest.startsWith("Signal ")) {
                report.detail = rest.trim();
            }
            return true;
        }
        return borders >= 1;
    }
}

package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaUnavailable;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The state machine of {@link SanitizerTextParser}: the run going and the record being read, fed the
 * lines of a log chunk by chunk. A headline opens a record, its indented lines fill it, a separator or
 * the next headline ends it; banners and summaries open and close runs. What the lines say is read by
 * {@link RecordHeadlines}, {@link RecordDetails} and {@link SummaryLines}; this class keeps only what
 * depends on the lines before: the frame continued on the next line, the run a line belongs to.
 */
final class TextLogState {
    private static final int MAX_PROBLEMS = 10;

    private final String prefix;
    private final Path name;
    private final Tool hint;
    private final IntFunction<Consumer<SanitizerRecord>> sinks;
    private final List<TextRun> done = new ArrayList<>();
    private final List<String> fileProblems = new ArrayList<>();
    private final ToolRefusal refusal = new ToolRefusal();
    private final RecordHeadlines headlines = new RecordHeadlines();
    private final FinishedRecords finished = new FinishedRecords();
    private TextRun run = new TextRun();
    private RecordBuilder current;
    /** The last record queued in the run going: what a record the log's end cut off is compared with. */
    private SanitizerRecord previous;

    private boolean pendingBarePc;
    private Frame awaitingModule; // the last frame: native, full-path, its module line may follow; else null
    private boolean anyBanner;
    private long nulLines;

    TextLogState(String prefix, Path name, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) {
        this.prefix = prefix;
        this.name = name;
        this.hint = hint;
        this.sinks = sinks;
    }

    /** Ends the current run (if it holds anything) and starts the next. */
    private void nextRun() {
        flush();
        if (!run.empty()) {
            done.add(run);
        }
        run = new TextRun();
        previous = null;
    }

    /** Before an event that belongs to a run still going: a finished run does not take it. */
    private void openRun() {
        if (run.closed()) {
            nextRun();
        }
    }

    /** A chunk's lines in the forms {@link SanitizerLines} read them into: what {@link #line} does with each. */
    void lines(LineChunk c) {
        byte[] tags = c.tag;
        Object[] values = c.values;
        for (int i = 0, n = c.lines; i < n; i++) {
            switch (tags[i]) {
                case LineChunk.NATIVE_FRAME:
                    if (current != null) {
                        pendingBarePc = false;
                        awaitingModule = null;
                        current.addNativeFrame(c.bytes, c.from[i], c.to[i]);
                    }
                    break;
                case LineChunk.HOST_FRAME:
                    if (current != null) {
                        hostFrame((Frame) values[i]);
                    }
                    break;
                case LineChunk.AT:
                    awaitingModule = null;
                    if (current != null && values[i] != null) {
                        ((AtLine) values[i]).applyTo(current);
                    }
                    break;
                case LineChunk.THREAD:
                    awaitingModule = null;
                    if (current != null) {
                        ((ThreadLine) values[i]).applyTo(current);
                    }
                    break;
                case LineChunk.SEPARATOR:
                    flush();
                    break;
                case LineChunk.HEADER:
                    header((String) values[i]);
                    break;
                case LineChunk.DETAIL:
                    if (current != null) {
                        detail((String) values[i]);
                    }
                    break;
                default:
                    line((String) values[i]);
                    break;
            }
        }
    }

    private void line(String raw) {
        String line = InputFiles.withoutAnsi(raw);
        if (line.indexOf('\0') >= 0) {
            nulLines++;
            line = line.replace("\0", "");
        }
        if (!line.startsWith(prefix)) {
            if (!anyBanner) {
                refusal.offer(line);
            }
            noGpu(line);
            return;
        }
        int start = prefix.length();
        int end = line.length();
        while (start < end && line.charAt(start) == ' ') {
            start++;
        }
        while (end > start && line.charAt(end - 1) <= ' ') {
            end--;
        }
        if (start == end) {
            flush();
            return;
        }
        int indent = start - prefix.length();
        if (indent > 1 && current != null && line.startsWith("Host Frame:", start)) {
            // the bulk of every log: parsed from the line in place
            hostFrame(end == line.length() ? line.substring(start + 11) : line.substring(start + 11, end));
            return;
        }
        String text = line.substring(start, end);
        if (indent <= 1) {
            header(text);
        } else if (current != null) {
            detail(text);
        }
        // an indented line outside a record explains the line above it (e.g. why the app crashed)
    }

    /**
     * The application's line (its output shares the tool's when there is no --log-file): torch's warning
     * that CUDA could not be initialised means the job ran without the GPU and the tool checked nothing.
     */
    private void noGpu(String line) {
        String warning = CudaUnavailable.warning(line);
        if (warning != null && run.toolFailures.stream().noneMatch(f -> f.startsWith(CudaUnavailable.MARK))) {
            openRun();
            run.toolFailures.add(warning);
        }
    }

    /** An unindented line: a banner, a summary or another line about the run, or a record's headline. */
    private void header(String text) {
        flush();
        switch (text.charAt(0)) {
            case 'C':
                if (text.startsWith("COMPUTE-SANITIZER") || text.startsWith("CUDA-MEMCHECK")) {
                    // a banner starts a run: after one that already started, it is the next run
                    if (run.banner || run.records > 0 || run.closed()) {
                        nextRun();
                    }
                    run.banner = true;
                    anyBanner = true;
                    return;
                }
                break;
            case 'E':
                if (text.startsWith("ERROR SUMMARY:")) {
                    errorSummary(text);
                    return;
                }
                if (text.startsWith("Error: process didn't terminate successfully")) {
                    openRun();
                    run.appCrashed = true;
                    return;
                }
                break;
            case 'L':
                if (text.startsWith("LEAK SUMMARY:")) {
                    openRun();
                    run.leakSummary = text.substring("LEAK SUMMARY:".length()).trim();
                    return;
                }
                break;
            case 'R':
                if (text.startsWith("RACECHECK SUMMARY:")) {
                    racecheckSummary(text);
                    return;
                }
                break;
            case 'T':
                if (text.startsWith("Target application returned an error")) {
                    openRun();
                    run.targetReturnedError = true;
                    return;
                }
                break;
            default:
                break;
        }
        RecordBuilder r = headlines.read(text);
        if (r != null) {
            openRun();
            // the tool a record of any tool belongs to is decided within its own run only
            Tool natural = r.tool;
            if (headlines.lastToolSpecific()) {
                run.typedRecords.merge(natural, 1, Integer::sum);
            } else {
                r.tool = hint != null ? hint : run.mostTyped(natural);
            }
            current = r;
            return;
        }
        if (text.startsWith("Error") || text.startsWith("Internal Sanitizer Error") || text.contains("timed-out")) {
            run.toolFailures.add(text);
        } else if (!text.startsWith("Default timeout can be adjusted")) {
            problem("unrecognised sanitizer line: " + SanitizerTextParser.abbreviate(text));
        }
    }

    /** An indented line of the current record: the module or the second half of the frame above, or a detail. */
    private void detail(String text) {
        RecordBuilder r = current;
        Frame above = awaitingModule;
        awaitingModule = null;
        if (above != null && text.startsWith("in ")) {
            // with full paths, the module of the frame above on a line of its own; that frame's text was kept whole
            // as its function: read again as the one-line form
            Frame joined = FrameParser.parse(
                    above.function() + " in " + text.substring(3).trim());
            if (joined != null && !joined.python() && joined.module() != null && r.replaceLastFrame(above, joined)) {
                return;
            }
        }
        if (pendingBarePc && text.startsWith("in ")) {
            pendingBarePc = false;
            r.addFrame(Frame.nativeFrame(null, null, 0, text.substring(3).trim()));
        } else {
            RecordDetails.apply(r, text);
        }
    }

    private void hostFrame(String rest) {
        if (rest.contains("] in ")) {
            // a native frame in the 2025.x form: kept raw, parsed when needed
            pendingBarePc = false;
            awaitingModule = null;
            current.addNativeFrame(rest);
            return;
        }
        hostFrame(FrameParser.parse(rest));
    }

    /** @param f the frame, null for the first half of the two-line form */
    private void hostFrame(Frame f) {
        if (f == null) {
            pendingBarePc = true;
            return;
        }
        pendingBarePc = false;
        current.addFrame(f);
        awaitingModule = !f.python() && f.module() == null && f.file() == null ? f : null;
    }

    private void errorSummary(String text) {
        SummaryLines.ErrorSummary s = SummaryLines.ErrorSummary.parse(text);
        long n = s.count();
        if (s.notPrinted()) {
            // not a second run's summary: its count is not added to the run's total
            if (n < 0) {
                // the gap between the count and the records judged still shows them as unchecked
                problem("unreadable count in: " + SanitizerTextParser.abbreviate(text));
            } else {
                run.notPrinted = n;
            }
            return;
        }
        if (run.errorSummary) {
            nextRun(); // a second summary: the next run, which printed nothing else
        }
        run.errorSummary = true;
        if (n < 0) {
            // too large, empty or not a number: the count is unknown, never "-1 errors"
            run.unreadableSummary = SanitizerTextParser.abbreviate(text);
            problem("unreadable ERROR SUMMARY count: " + SanitizerTextParser.abbreviate(text));
        } else if (!run.racecheckSummary) {
            run.errorsTotal = n;
        }
    }

    private void racecheckSummary(String text) {
        if (run.racecheckSummary) {
            nextRun();
        }
        run.racecheckSummary = true;
        SummaryLines.RacecheckSummary s = SummaryLines.RacecheckSummary.parse(text);
        if (s == null) {
            run.errorsTotal = null;
            run.warnings = null;
            run.unreadableSummary = SanitizerTextParser.abbreviate(text);
            problem("unreadable RACECHECK SUMMARY counts: " + SanitizerTextParser.abbreviate(text));
        } else {
            run.errorsTotal = s.errors();
            run.warnings = s.warnings();
        }
    }

    /** Ends the record being read, if any: queued for its run's sink. */
    void flush() {
        pendingBarePc = false;
        awaitingModule = null;
        if (current != null) {
            queue(current.build());
        }
    }

    /** R, the record just read, for its run's sink; the record being read is done with. */
    private void queue(SanitizerRecord r) {
        if (run.sink == null) {
            run.sink = sinks.apply(done.size());
        }
        run.records++;
        previous = r;
        finished.add(r, run.sink);
        current = null;
    }

    /**
     * The end of the log. A record still open there was cut off: a tool that finishes ends its last record before
     * its summary, so this one stops anywhere in its host frames, and without the frame that names the job's line it
     * would be grouped as a defect of its own (on the H200, memcheck killed amid one kernel's records: two defects
     * where there is one). The same error as the record before it (tool, kind, headline, kernel, pc, device line) is
     * that record's defect once more: not counted again. Any other is kept as read. Either is said.
     */
    void endOfLog() {
        if (current == null) {
            return;
        }
        SanitizerRecord cut = current.build();
        current = null;
        String what = cut.message() + (cut.kernel() == null ? "" : " in " + cut.kernel());
        if (previous != null && sameError(cut, previous)) {
            problem("the last record was cut off (the tool stopped while writing it): the same error as the"
                    + " record before it, not counted again: " + SanitizerTextParser.abbreviate(what));
            return;
        }
        problem("the last record was cut off (the tool stopped while writing it): kept as read, its host"
                + " frames may stop short of the job's line: " + SanitizerTextParser.abbreviate(what));
        queue(cut);
    }

    private static boolean sameError(SanitizerRecord a, SanitizerRecord b) {
        return a.tool() == b.tool()
                && a.kind() == b.kind()
                && Objects.equals(a.message(), b.message())
                && Objects.equals(a.kernel(), b.kernel())
                && Objects.equals(a.pc(), b.pc())
                && Objects.equals(a.deviceLocation(), b.deviceLocation());
    }

    /** Gives the records finished since the last call to their sinks, in order ({@link FinishedRecords}). */
    void deliver() {
        finished.deliver();
    }

    private void problem(String text) {
        if (run.problems.size() < MAX_PROBLEMS) {
            run.problems.add(text);
        }
    }

    void fileProblem(String text) {
        fileProblems.add(text);
    }

    /**
     * The runs read, after the last line.
     *
     * @throws InputException when the file held no run: empty, binary or not sanitizer output
     */
    List<SanitizerOutput> finish(long lineCount) {
        nextRun();
        deliver();
        if (done.stream().noneMatch(r -> r.banner || r.records > 0 || r.closed())) {
            SanitizerOutput refused = refusal.output(name, hint, anyBanner, lineCount);
            if (refused != null) {
                return List.of(refused);
            }
            if (lineCount == 0) {
                throw new InputException(name, "empty file, expected compute-sanitizer text output");
            }
            if (nulLines > 0) {
                throw new InputException(name, "binary data, not compute-sanitizer text output");
            }
            throw new InputException(
                    name,
                    "not compute-sanitizer text output (no '" + prefix
                            + " COMPUTE-SANITIZER' banner, no record, no summary)");
        }
        if (nulLines > 0) {
            fileProblem(nulLines + " line(s) held NUL bytes");
        }
        List<SanitizerOutput> out = new ArrayList<>(done.size());
        for (TextRun r : done) {
            out.add(r.output(name, hint, fileProblems));
        }
        return out;
    }
}

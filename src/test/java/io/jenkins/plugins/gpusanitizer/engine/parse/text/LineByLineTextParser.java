package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.BoundedLineReader;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputFiles;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The text parser as it was before it read lines as bytes in chunks (commit 78ea14a), kept unchanged
 * but for its name: the reference {@link TextParserEquivalenceTest} compares the parser with. One
 * String per line, one thread.
 *
 * <p>Streams compute-sanitizer's text output (stdout or {@code --log-file}) record by record, in
 * bounded memory: each finished record goes to the sink at once and is not kept. Lines without the
 * prefix are the application's own output and are skipped.
 *
 * <p>A file may hold several tool runs one after the other (an initcheck run, then a memcheck run,
 * appended to one log): each banner after a run started, and anything but the "were not printed"
 * line after a run's summary, starts a new run, with its own tool, records and summary
 * ({@link #parseRuns}). Nothing of one run is carried into the next.
 */
final class LineByLineTextParser {
    public static final String DEFAULT_PREFIX = "=========";
    private static final int MAX_PROBLEMS = 10;

    private static final Pattern INVALID =
            Pattern.compile("^Invalid (?:(__\\w+__) )?(?:memory )?(\\w+)(?: access)? of size ([\\d,]+) bytes?.*");
    private static final Pattern API = Pattern.compile(
            "^Program hit (\\S+) \\(error (\\d+)\\) due to \"?(.*?)\"? on CUDA API call to (\\S+?)\\.?$");
    private static final Pattern LEAK = Pattern.compile("^Leaked ([\\d,]+) bytes? at (0x[0-9a-fA-F]+)(.*)$");
    private static final Pattern HAZARD = Pattern.compile(
            "^(Error|Warning|WARN|Information|INFO): ?(?:\\(([^)]*)\\) )?Potential (\\w+) hazard detected at (\\S+) (\\S+) in block \\(([^)]*)\\).*");
    private static final Pattern RACE =
            Pattern.compile("^(Error|Warning): Race reported between (\\w+) access at (.+)$");
    private static final Pattern AT = Pattern.compile("^at (.+?)\\+(0x[0-9a-fA-F]+)(?: in (.+):(\\d+))?$");
    private static final Pattern AT_OLD = Pattern.compile("^at (0x[0-9a-fA-F]+) in (.+)$");
    private static final Pattern BY_THREAD = Pattern.compile("^by thread \\(([^)]*)\\) in block \\(([^)]*)\\)");
    private static final Pattern HAZARD_THREAD =
            Pattern.compile("^(\\w+) Thread \\(([^)]*)\\) at (.+?)\\+(0x[0-9a-fA-F]+)(?: in (.+):(\\d+))?$");
    private static final Pattern RACE_AND = Pattern.compile("^and (\\w+) access at .*?(?:\\[([\\d,]+) hazards?\\])?$");
    private static final Pattern ERROR_SUMMARY = Pattern.compile("^ERROR SUMMARY: ([\\d,]+) errors?(.*)$");
    private static final String NOT_PRINTED =
            " were not printed. Use --print-limit option to adjust the number of printed errors";
    private static final Pattern RACECHECK_SUMMARY = Pattern.compile(
            "^RACECHECK SUMMARY: ([\\d,]+) hazards? displayed \\(([\\d,]+) errors?, ([\\d,]+) warnings?\\)");
    /** Messages the tool prints about itself when it could not run the target properly. */
    private static final Pattern TOOL_ERROR_NO_BANNER = Pattern.compile(
            "^(?:--\\S+ was enabled but .*|(?:Error: )?[Uu]nrecognized option.*|.*: extra \\S+ detected.*|Error: .*|"
                    + ".*[Dd]evice not supported.*|.*No attachable process.*)$");
    /** A file without banner is taken as the tool's own refusal only when it is this short. */
    private static final int MAX_LINES_OF_REFUSAL = 20;

    private final String prefix;

    LineByLineTextParser() {
        this(DEFAULT_PREFIX);
    }

    LineByLineTextParser(String prefix) {
        this.prefix = prefix;
    }

    /**
     * Parses a file.
     *
     * @param hint the tool that ran when the caller knows it (the runner does), else null
     * @throws InputException when the file is missing, unreadable, empty or not sanitizer output
     */
    public SanitizerOutput parse(Path file, Tool hint, Consumer<SanitizerRecord> sink) {
        return InputFiles.read(file, in -> parse(in, file, hint, sink));
    }

    /**
     * Parses a file that may hold several tool runs; the records of the i-th run returned go to
     * {@code sinks.apply(i)}.
     *
     * @throws InputException when the file is missing, unreadable, empty or not sanitizer output
     */
    public List<SanitizerOutput> parseRuns(Path file, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) {
        return InputFiles.read(file, in -> parseRuns(in, file, hint, sinks));
    }

    /** All runs of the stream as one output (records of every run go to {@code sink}); see {@link #parseRuns}. */
    public SanitizerOutput parse(InputStream in, Path name, Tool hint, Consumer<SanitizerRecord> sink)
            throws IOException {
        return combine(parseRuns(in, name, hint, i -> sink));
    }

    public List<SanitizerOutput> parseRuns(
            InputStream in, Path name, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) throws IOException {
        State st = new State(name, hint, sinks);
        OldByteLineReader lines = new OldByteLineReader(InputFiles.utf8(in), BoundedLineReader.DEFAULT_MAX_LINE);
        String line;
        while ((line = lines.readLine()) != null) {
            st.line(line);
        }
        st.flush();
        if (lines.truncatedLines() > 0) {
            st.fileProblem(lines.truncatedLines() + " over-long line(s) were cut at "
                    + BoundedLineReader.DEFAULT_MAX_LINE + " characters");
        }
        return st.finish(lines.lineNumber());
    }

    /**
     * Several runs as one output, for callers that judge a file as a whole: complete only when every
     * run is, counts summed (unknown when one is unknown), every failure and problem kept.
     */
    static SanitizerOutput combine(List<SanitizerOutput> runs) {
        if (runs.size() == 1) {
            return runs.get(0);
        }
        SanitizerOutput first = runs.get(0);
        List<String> failures = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        long records = 0;
        Long total = 0L;
        Long notPrinted = null;
        Long warnings = null;
        String leak = null;
        String unreadable = null;
        boolean banner = false;
        boolean tre = false;
        boolean crashed = false;
        boolean complete = true;
        boolean detected = true;
        for (SanitizerOutput o : runs) {
            records += o.recordsParsed();
            total = total == null || o.errorsTotal() == null ? null : total + o.errorsTotal();
            notPrinted = sum(notPrinted, o.errorsNotPrinted());
            warnings = sum(warnings, o.warningsTotal());
            leak = o.leakSummary() != null ? o.leakSummary() : leak;
            unreadable = o.unreadableSummary() != null ? o.unreadableSummary() : unreadable;
            banner |= o.banner();
            tre |= o.targetReturnedError();
            crashed |= o.appCrashed();
            complete &= o.complete();
            detected &= o.toolDetected();
            failures.addAll(o.toolFailures());
            o.problems().stream().filter(p -> !problems.contains(p)).forEach(problems::add);
        }
        problems.add(runs.size() + " tool runs in one file: "
                + runs.stream().map(o -> o.tool().id()).toList());
        return new SanitizerOutput(
                first.source(),
                first.format(),
                first.tool(),
                detected,
                banner,
                records,
                total,
                notPrinted,
                warnings,
                leak,
                tre,
                crashed,
                failures,
                complete,
                problems,
                unreadable);
    }

    private static Long sum(Long a, Long b) {
        return a == null ? b : b == null ? a : Long.valueOf(a + b);
    }

    /** One tool run inside the file: everything the output of one run says. */
    private static final class Run {
        final Map<Tool, Integer> typedRecords = new EnumMap<>(Tool.class);
        final List<String> toolFailures = new ArrayList<>();
        final List<String> problems = new ArrayList<>();
        Consumer<SanitizerRecord> sink;
        boolean banner;
        boolean racecheckSummary;
        boolean errorSummary;
        long records;
        Long errorsTotal;
        Long notPrinted;
        Long warnings;
        String leakSummary;
        String unreadableSummary;
        boolean targetReturnedError;
        boolean appCrashed;

        /** The run has ended: its summary was printed. */
        boolean closed() {
            return errorSummary || racecheckSummary;
        }

        boolean empty() {
            return !banner
                    && !closed()
                    && records == 0
                    && toolFailures.isEmpty()
                    && leakSummary == null
                    && unreadableSummary == null
                    && !targetReturnedError
                    && !appCrashed;
        }
    }

    private final class State {
        final Path name;
        final Tool hint;
        final IntFunction<Consumer<SanitizerRecord>> sinks;
        final List<Run> done = new ArrayList<>();
        final List<String> fileProblems = new ArrayList<>();
        final List<String> foreignToolErrors = new ArrayList<>();
        Run run = new Run();
        RecordBuilder current;
        boolean pendingBarePc;
        boolean anyBanner;
        /** Set by {@link #typed}: the record's kind is printed only by its tool. */
        boolean lastToolSpecific;

        long nulLines;

        State(Path name, Tool hint, IntFunction<Consumer<SanitizerRecord>> sinks) {
            this.name = name;
            this.hint = hint;
            this.sinks = sinks;
        }

        /** Ends the current run (if it holds anything) and starts the next. */
        void nextRun() {
            flush();
            if (!run.empty()) {
                done.add(run);
            }
            run = new Run();
        }

        /** Before an event that belongs to a run still going: a finished run does not take it. */
        void openRun() {
            if (run.closed()) {
                nextRun();
            }
        }

        void line(String raw) {
            String line = raw;
            if (line.indexOf('\u001b') >= 0) {
                line = line.replaceAll("\u001b\\[[0-9;]*[A-Za-z]", "");
            }
            if (line.indexOf('\0') >= 0) {
                nulLines++;
                line = line.replace("\0", "");
            }
            if (!line.startsWith(prefix)) {
                if (!anyBanner
                        && foreignToolErrors.size() < 3
                        && TOOL_ERROR_NO_BANNER.matcher(line).matches()) {
                    foreignToolErrors.add(line.trim());
                }
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

        void header(String text) {
            flush();
            char c = text.charAt(0);
            switch (c) {
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
                        summary(text);
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
                        run.leakSummary =
                                text.substring("LEAK SUMMARY:".length()).trim();
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
            RecordBuilder r = startRecord(text);
            if (r != null) {
                openRun();
                // the tool a record of any tool belongs to is decided within its own run only
                Tool natural = r.tool;
                if (lastToolSpecific) {
                    run.typedRecords.merge(natural, 1, Integer::sum);
                } else {
                    r.tool = generalTool(natural);
                }
                current = r;
                return;
            }
            if (text.startsWith("Error") || text.startsWith("Internal Sanitizer Error") || text.contains("timed-out")) {
                run.toolFailures.add(text);
            } else if (!text.startsWith("Default timeout can be adjusted")) {
                problem("unrecognised sanitizer line: " + abbreviate(text));
            }
        }

        RecordBuilder startRecord(String text) {
            Matcher m;
            switch (text.charAt(0)) {
                case 'I':
                    if (text.startsWith("Invalid ") && (m = INVALID.matcher(text)).matches()) {
                        return typed(Tool.MEMCHECK, Kind.INVALID_ACCESS, text, false);
                    }
                    if (text.startsWith("Illegal")) {
                        return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
                    }
                    break;
                case 'P':
                    if (text.startsWith("Program hit ") && (m = API.matcher(text)).matches()) {
                        RecordBuilder r = typed(
                                Tool.MEMCHECK,
                                Kind.API_ERROR,
                                m.group(1) + " on CUDA API call to " + m.group(4),
                                false);
                        r.addDetail(text);
                        return r;
                    }
                    break;
                case 'L':
                    if ((m = LEAK.matcher(text)).matches()) {
                        RecordBuilder r = typed(
                                Tool.MEMCHECK,
                                Kind.LEAK,
                                m.group(3).contains("device heap")
                                        ? "Leaked memory on the device heap"
                                        : "Leaked device memory",
                                false);
                        r.addDetail("Leaked " + m.group(1) + " bytes");
                        return r;
                    }
                    break;
                case 'W':
                case 'B':
                case 'D':
                    if (text.endsWith(" assert")
                            || text.startsWith("Warp assert")
                            || text.startsWith("Device assert")) {
                        return typed(Tool.MEMCHECK, Kind.DEVICE_ASSERT, text, false);
                    }
                    if (text.startsWith("Barrier error") || text.startsWith("Warpgroup MMA")) {
                        return typed(Tool.SYNCCHECK, Kind.BARRIER_ERROR, text.replaceAll("\\.$", ""), true);
                    }
                    if ((text.startsWith("Warning") || text.startsWith("WARN"))
                            && (m = HAZARD.matcher(text)).matches()) {
                        return hazard(m);
                    }
                    if (text.startsWith("Warning: Race reported") && (m = RACE.matcher(text)).matches()) {
                        return race(m);
                    }
                    break;
                case 'E':
                    if (text.startsWith("Error: Potential") && (m = HAZARD.matcher(text)).matches()) {
                        return hazard(m);
                    }
                    if (text.startsWith("Error: Race reported") && (m = RACE.matcher(text)).matches()) {
                        return race(m);
                    }
                    break;
                case 'U':
                    if (text.startsWith("Uninitialized")) {
                        return typed(Tool.INITCHECK, Kind.UNINITIALIZED_READ, text, true);
                    }
                    if (text.startsWith("Unused")) {
                        RecordBuilder r =
                                typed(Tool.INITCHECK, Kind.UNUSED_MEMORY, "Unused memory in allocation", true);
                        r.addDetail(text);
                        return r;
                    }
                    break;
                case 'M':
                    if (text.startsWith("Malloc/Free error")) {
                        return typed(Tool.MEMCHECK, Kind.MALLOC_FREE_ERROR, text, false);
                    }
                    if (text.startsWith("Misaligned")) {
                        return typed(Tool.MEMCHECK, Kind.MISALIGNED, text, false);
                    }
                    break;
                case 'H':
                    if (text.startsWith("Host API memory access error")) {
                        return typed(Tool.MEMCHECK, Kind.INVALID_ACCESS, "Host API memory access error", false);
                    }
                    if (text.startsWith("Hardware exception") || text.startsWith("Hardware Exception")) {
                        return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
                    }
                    break;
                case 'F':
                    if (text.startsWith("Fatal UVM")) {
                        return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
                    }
                    break;
                case 'O':
                    if (text.startsWith("Out-of-range")) {
                        return typed(Tool.MEMCHECK, Kind.HARDWARE_EXCEPTION, text, false);
                    }
                    break;
                default:
                    break;
            }
            return null;
        }

        /** @param toolSpecific true when only that tool prints this kind of record */
        RecordBuilder typed(Tool natural, Kind kind, String message, boolean toolSpecific) {
            lastToolSpecific = toolSpecific;
            return new RecordBuilder(natural, kind, message);
        }

        Tool generalTool(Tool natural) {
            if (hint != null) {
                return hint;
            }
            return run.typedRecords.entrySet().stream()
                    .max(Map.Entry.comparingByValue())
                    .map(Map.Entry::getKey)
                    .orElse(natural);
        }

        RecordBuilder hazard(Matcher m) {
            RecordBuilder r =
                    typed(Tool.RACECHECK, Kind.RACE, "Potential " + m.group(3) + " hazard at " + m.group(4), true);
            r.severityError = m.group(1).startsWith("E");
            r.block = "(" + m.group(6).replace(" ", "") + ")";
            return r;
        }

        RecordBuilder race(Matcher m) {
            RecordBuilder r =
                    typed(Tool.RACECHECK, Kind.RACE, "Race reported between " + m.group(2) + " accesses", true);
            r.severityError = m.group(1).startsWith("E");
            atLocation(r, "at " + m.group(3));
            return r;
        }

        void detail(String text) {
            RecordBuilder r = current;
            Matcher m;
            if (pendingBarePc && text.startsWith("in ")) {
                pendingBarePc = false;
                r.addFrame(Frame.nativeFrame(null, null, 0, text.substring(3).trim()));
            } else if (text.startsWith("at ")) {
                atLocation(r, text);
            } else if (text.startsWith("by thread") && (m = BY_THREAD.matcher(text)).find()) {
                r.thread = "(" + m.group(1).replace(" ", "") + ")";
                r.block = "(" + m.group(2).replace(" ", "") + ")";
            } else if (text.startsWith("Access to ") || text.startsWith("Address ")) {
                if (text.endsWith("is misaligned")) {
                    r.kind = Kind.MISALIGNED;
                } else if (text.endsWith("is out of bounds") && r.kind == Kind.INVALID_ACCESS) {
                    r.kind = Kind.OUT_OF_BOUNDS;
                }
                r.addDetail(text);
            } else if (text.startsWith("and is ")) {
                r.addDetail(text);
            } else if (text.startsWith("Device Frame:")) {
                if (r.deviceLocation == null) {
                    Matcher d = AT.matcher(
                            "at " + text.substring("Device Frame:".length()).trim());
                    if (d.matches() && d.group(3) != null && !d.group(1).startsWith("__assertfail")) {
                        r.deviceLocation = SourceLocation.of(d.group(3), FrameParser.parseInt(d.group(4)), d.group(1));
                    }
                }
            } else if (r.kind == Kind.RACE) {
                raceDetail(r, text);
            } else if (!text.startsWith("Saved host backtrace")) {
                r.addDetail(text);
            }
        }

        void hostFrame(String rest) {
            if (rest.contains("] in ")) {
                // a native frame in the 2025.x form: kept raw, parsed when needed
                pendingBarePc = false;
                current.addNativeFrame(rest);
                return;
            }
            Frame f = FrameParser.parse(rest);
            if (f == null) {
                pendingBarePc = true;
                return;
            }
            pendingBarePc = false;
            current.addFrame(f);
        }

        void raceDetail(RecordBuilder r, String text) {
            Matcher m = HAZARD_THREAD.matcher(text);
            if (m.matches()) {
                if (r.kernel == null) {
                    r.thread = "(" + m.group(2).replace(" ", "") + ")";
                    r.kernel = m.group(3);
                    r.pc = m.group(4);
                    if (m.group(5) != null) {
                        r.deviceLocation = SourceLocation.of(m.group(5), FrameParser.parseInt(m.group(6)), m.group(3));
                    }
                }
                return;
            }
            m = RACE_AND.matcher(text);
            if (m.matches()) {
                if (!r.message.contains(" and ")) {
                    // "Race reported between Write access at ..." / "and Read access at ...": name the pair
                    r.message = r.message.replace(" accesses", " and " + m.group(1) + " accesses");
                }
                if (m.group(2) != null) {
                    r.addDetail(m.group(2) + " hazards");
                }
                return;
            }
            if (!text.startsWith("Current Value")) {
                r.addDetail(text);
            }
        }

        void atLocation(RecordBuilder r, String text) {
            Matcher m = AT.matcher(text);
            if (m.matches()) {
                r.kernel = m.group(1);
                r.pc = m.group(2);
                if (m.group(3) != null) {
                    r.deviceLocation = SourceLocation.of(m.group(3), FrameParser.parseInt(m.group(4)), null);
                }
                return;
            }
            m = AT_OLD.matcher(text);
            if (m.matches()) {
                r.pc = m.group(1);
                r.kernel = m.group(2);
            }
        }

        void summary(String text) {
            Matcher m = ERROR_SUMMARY.matcher(text);
            long n = m.matches() ? FrameParser.parseLong(m.group(1)) : -1;
            // "N errors were not printed. Use --print-limit ..." cut off in the middle (a killed tool) is
            // not a second run's summary: its count is not added to the run's total
            boolean notPrintedLine = text.contains("not printed")
                    || (n >= 0 && !m.group(2).isEmpty() && NOT_PRINTED.startsWith(m.group(2)));
            if (notPrintedLine) {
                if (n < 0) {
                    // the gap between the count and the records judged still shows them as unchecked
                    problem("unreadable count in: " + abbreviate(text));
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
                run.unreadableSummary = abbreviate(text);
                problem("unreadable ERROR SUMMARY count: " + abbreviate(text));
            } else if (!run.racecheckSummary) {
                run.errorsTotal = n;
            }
        }

        void racecheckSummary(String text) {
            if (run.racecheckSummary) {
                nextRun();
            }
            run.racecheckSummary = true;
            Matcher m = RACECHECK_SUMMARY.matcher(text);
            long errors = m.find() ? FrameParser.parseLong(m.group(2)) : -1;
            long warnings = errors < 0 ? -1 : FrameParser.parseLong(m.group(3));
            if (errors < 0 || warnings < 0) {
                run.errorsTotal = null;
                run.warnings = null;
                run.unreadableSummary = abbreviate(text);
                problem("unreadable RACECHECK SUMMARY counts: " + abbreviate(text));
            } else {
                run.errorsTotal = errors;
                run.warnings = warnings;
            }
        }

        void flush() {
            pendingBarePc = false;
            if (current != null) {
                if (run.sink == null) {
                    run.sink = sinks.apply(done.size());
                }
                run.records++;
                run.sink.accept(current.build());
                current = null;
            }
        }

        void problem(String text) {
            if (run.problems.size() < MAX_PROBLEMS) {
                run.problems.add(text);
            }
        }

        void fileProblem(String text) {
            fileProblems.add(text);
        }

        List<SanitizerOutput> finish(long lineCount) {
            nextRun();
            if (done.stream().noneMatch(r -> r.banner || r.records > 0 || r.closed())) {
                if (!anyBanner && !foreignToolErrors.isEmpty() && lineCount <= MAX_LINES_OF_REFUSAL) {
                    return List.of(new SanitizerOutput(
                            name.toString(),
                            "text",
                            hint == null ? Tool.MEMCHECK : hint,
                            hint != null,
                            false,
                            0,
                            null,
                            null,
                            null,
                            null,
                            false,
                            false,
                            foreignToolErrors,
                            false,
                            List.of("no compute-sanitizer banner: the tool refused to run"),
                            null));
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
            for (Run r : done) {
                out.add(output(r));
            }
            return out;
        }

        SanitizerOutput output(Run r) {
            Tool tool = hint;
            boolean detected = false;
            if (r.racecheckSummary) {
                tool = Tool.RACECHECK;
                detected = true;
            } else if (!r.typedRecords.isEmpty()) {
                tool = r.typedRecords.entrySet().stream()
                        .max(Map.Entry.comparingByValue())
                        .get()
                        .getKey();
                detected = true;
            } else if (r.leakSummary != null) {
                tool = Tool.MEMCHECK;
                detected = true;
            } else if (r.records > 0) {
                tool = hint == null ? Tool.MEMCHECK : hint;
                detected = true;
            }
            if (tool == null) {
                tool = Tool.MEMCHECK;
            }
            List<String> problems = new ArrayList<>(r.problems);
            boolean complete = r.errorsTotal != null && r.toolFailures.isEmpty();
            if (r.errorsTotal == null && r.unreadableSummary == null) {
                problems.add("no ERROR SUMMARY: the sanitizer did not finish (killed, timed out or crashed)");
            }
            problems.addAll(fileProblems);
            return new SanitizerOutput(
                    name.toString(),
                    "text",
                    tool,
                    detected || hint != null,
                    r.banner,
                    r.records,
                    r.errorsTotal,
                    r.notPrinted,
                    r.warnings,
                    r.leakSummary,
                    r.targetReturnedError,
                    r.appCrashed,
                    r.toolFailures,
                    complete,
                    problems,
                    r.unreadableSummary);
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    /** ByteLineReader as it was (commit 78ea14a). */
    static final class OldByteLineReader implements AutoCloseable {
        private final InputStream in;
        private final int maxLine;
        private byte[] buf = new byte[1 << 16];
        private int pos;
        private int len;
        private boolean skipLf;
        private boolean discarding;
        private boolean eof;
        private long truncatedLines;
        private long lineNumber;

        OldByteLineReader(InputStream in, int maxLine) {
            this.in = in;
            this.maxLine = maxLine;
        }

        String readLine() throws IOException {
            while (true) {
                int nl = -1;
                for (int i = pos; i < len; i++) {
                    byte b = buf[i];
                    if (b == '\n' || b == '\r') {
                        nl = i;
                        break;
                    }
                }
                if (nl >= 0) {
                    int from = pos;
                    byte b = buf[nl];
                    pos = nl + 1;
                    if (skipLf && b == '\n' && nl == from) {
                        skipLf = false;
                        continue; // the LF of a CRLF
                    }
                    skipLf = b == '\r';
                    if (discarding) {
                        discarding = false;
                        continue; // the end of an over-long line, already returned cut
                    }
                    return make(from, nl);
                }
                if (discarding) {
                    pos = len;
                } else if (len - pos >= maxLine) {
                    String head = make(pos, pos + maxLine);
                    truncatedLines++;
                    discarding = true;
                    skipLf = false;
                    pos = len;
                    return head;
                }
                if (eof) {
                    if (pos >= len || discarding) {
                        return null;
                    }
                    String last = make(pos, len);
                    pos = len;
                    return last;
                }
                fill();
            }
        }

        private void fill() throws IOException {
            int pending = len - pos;
            if (pos > 0) {
                System.arraycopy(buf, pos, buf, 0, pending);
                len = pending;
                pos = 0;
            }
            if (len == buf.length) {
                buf = Arrays.copyOf(buf, buf.length * 2);
            }
            int n = in.read(buf, len, buf.length - len);
            if (n < 0) {
                eof = true;
            } else {
                len += n;
            }
        }

        private String make(int from, int to) {
            lineNumber++;
            for (int i = from; i < to; i++) {
                if (buf[i] < 0) {
                    return new String(buf, from, to - from, StandardCharsets.UTF_8);
                }
            }
            return new String(buf, from, to - from, StandardCharsets.ISO_8859_1);
        }

        long truncatedLines() {
            return truncatedLines;
        }

        long lineNumber() {
            return lineNumber;
        }

        @Override
        public void close() throws IOException {
            in.close();
        }
    }
}

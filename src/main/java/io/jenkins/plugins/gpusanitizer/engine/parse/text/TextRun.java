package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/** One tool run inside a text log ({@link SanitizerTextParser}): everything the output of one run says. */
final class TextRun {
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

    /**
     * The tool of a record that any tool may print: the one that printed most of the run's records so
     * far (the first of them, as a stream's max would give, without a stream per record), else
     * {@code natural}.
     */
    Tool mostTyped(Tool natural) {
        Tool most = natural;
        int count = 0;
        for (Map.Entry<Tool, Integer> e : typedRecords.entrySet()) {
            if (e.getValue() > count) {
                most = e.getKey();
                count = e.getValue();
            }
        }
        return most;
    }

    /**
     * What the run says: the tool that ran is the one its summary or most of its records name, else
     * the caller's hint, else memcheck.
     *
     * @param hint the tool that ran when the caller knows it, else null
     * @param fileProblems the problems of the whole file, added to the run's own
     */
    SanitizerOutput output(Path name, Tool hint, List<String> fileProblems) {
        Tool tool = hint;
        boolean detected = false;
        if (racecheckSummary) {
            tool = Tool.RACECHECK;
            detected = true;
        } else if (!typedRecords.isEmpty()) {
            tool = mostTyped(hint);
            detected = true;
        } else if (leakSummary != null) {
            tool = Tool.MEMCHECK;
            detected = true;
        } else if (records > 0) {
            tool = hint == null ? Tool.MEMCHECK : hint;
            detected = true;
        }
        if (tool == null) {
            tool = Tool.MEMCHECK;
        }
        List<String> all = new ArrayList<>(problems);
        boolean complete = errorsTotal != null && toolFailures.isEmpty();
        if (errorsTotal == null && unreadableSummary == null) {
            all.add("no ERROR SUMMARY: the sanitizer did not finish (killed, timed out or crashed)");
        }
        all.addAll(fileProblems);
        return new SanitizerOutput(
                name.toString(),
                "text",
                tool,
                detected || hint != null,
                banner,
                records,
                errorsTotal,
                notPrinted,
                warnings,
                leakSummary,
                targetReturnedError,
                appCrashed,
                toolFailures,
                complete,
                all,
                unreadableSummary);
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
}

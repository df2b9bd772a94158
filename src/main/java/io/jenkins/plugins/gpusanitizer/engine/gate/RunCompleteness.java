package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.findings.DefectGrouper;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.findings.UncachedCaptureRule;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.parse.SanitizerOutput;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaUnavailable;
import java.util.ArrayList;
import java.util.List;

/**
 * Whether a sanitizer run's output can be trusted at all: did the tool run, finish, and say everything it counted.
 * Apart from the findings so that the fail-closed rules read in one place: a tool failure, a crash, a truncated
 * output or a run that did no work is never a pass, whatever the run's records say.
 */
final class RunCompleteness {
    private final GatePolicy policy;

    /** @param policy decides how counted-but-unlisted errors act, as it does for the listed defects */
    RunCompleteness(GatePolicy policy) {
        this.policy = policy;
    }

    /**
     * Whether this run's job died of a CUDA graph capture broken by the uncached allocator and the same tool checked
     * it again with the cache kept (the runner's rerun): its death is then the gate's doing, and the rest of the job
     * was checked by the rerun. What this run found before the capture broke still counts.
     */
    private static boolean checkedAgain(SanitizerRun run, List<SanitizerRun> runs) {
        return brokeCapture(run)
                && runs.stream().anyMatch(r -> r.tool() == run.tool() && Boolean.TRUE.equals(r.cachingAllocator()));
    }

    private static boolean brokeCapture(SanitizerRun run) {
        return run.defects().stream()
                .anyMatch(d -> d.suppressed()
                        && UncachedCaptureRule.ID.equals(d.suppressedBy().rule()));
    }

    /**
     * Whether one tool's run can be trusted, step by step: the tool's own failures, its summary, its XML, how the
     * target ended, a broken capture, errors counted but not judged, the defect cap, and what the readers noticed.
     *
     * @param runs every run of the job: another run of the same tool may have checked this one again
     */
    void judge(SanitizerRun run, List<SanitizerRun> runs, List<Reason> reasons) {
        boolean checkedAgain = checkedAgain(run, runs);
        toolFailures(run, reasons);
        summaryStatus(run, reasons);
        xmlStatus(run, reasons);
        targetStatus(run, checkedAgain, reasons);
        if (brokeCapture(run) && !checkedAgain) {
            captureConflict(run, reasons);
        }
        countedErrors(run, reasons);
        defectCap(run, reasons);
        inputProblems(run.primary(), reasons);
    }

    /** What the tool said of itself: it could not run the target, or the target saw no GPU. */
    private static void toolFailures(SanitizerRun run, List<Reason> reasons) {
        SanitizerOutput out = run.primary();
        String tool = run.tool().id();
        for (String failure : out.toolFailures()) {
            if (failure.startsWith(CudaUnavailable.MARK)) {
                reasons.add(Reason.error(
                        "no-gpu",
                        tool + " in " + out.source() + ": the job printed torch's warning '" + failure
                                + "' and ran without the GPU: " + tool + " checked nothing"));
                continue;
            }
            String hint = failure.contains("before first instrumented API call")
                    ? " (the target never initialised CUDA: wrong command, missing script, or a wrapper that does not touch the GPU)"
                    : "";
            reasons.add(Reason.error("tool-failure", tool + " in " + out.source() + ": " + failure + hint));
        }
    }

    /** A text log whose ERROR SUMMARY is missing or unreadable: the number of errors is unknown. */
    private static void summaryStatus(SanitizerRun run, List<Reason> reasons) {
        String tool = run.tool().id();
        boolean unreadable = run.text() != null && run.text().unreadableSummary() != null;
        if (unreadable) {
            reasons.add(Reason.error(
                    "unreadable-summary",
                    tool + ": the count of '" + run.text().unreadableSummary() + "' in "
                            + run.text().source()
                            + " cannot be read: the number of errors is unknown; " + run.recordsParsed()
                            + " record(s) read"));
        }
        if (run.text() != null
                && run.text().toolFailures().isEmpty()
                && run.text().errorsTotal() == null
                && !unreadable) {
            reasons.add(Reason.error(
                    "incomplete",
                    tool + ": no ERROR SUMMARY in " + run.text().source()
                            + ": the sanitizer did not finish (killed, timed out or crashed); " + run.recordsParsed()
                            + " record(s) read"));
        }
    }

    /** An XML cut off, or an XML given without its text log (it holds the printed records only). */
    private static void xmlStatus(SanitizerRun run, List<Reason> reasons) {
        String tool = run.tool().id();
        boolean defects = !run.unsuppressed().isEmpty();
        if (run.xml() != null && !run.xml().complete()) {
            Reason.Level level =
                    run.text() != null && run.text().complete() ? Reason.Level.WARNING : Reason.Level.ERROR;
            reasons.add(new Reason(
                    level,
                    "xml-truncated",
                    tool + ": " + run.xml().source() + " is cut off; "
                            + run.xml().recordsParsed() + " complete record(s) kept"
                            + (level == Reason.Level.WARNING ? ", the text log is complete" : "")));
        }
        if (run.text() == null && run.xml() != null && run.xml().complete()) {
            if (defects) {
                reasons.add(Reason.info(
                        "no-summary",
                        tool + ": only the XML was given; it holds the printed records only, "
                                + "so the total error count is unknown (keep the --log-file text beside it)"));
            } else {
                // no summary is never a pass: an XML holds the printed records only, and perhaps not all of them
                reasons.add(
                        Reason.error(
                                "no-summary",
                                tool + ": only the XML " + run.xml().source()
                                        + " was given and it holds no unsuppressed record ("
                                        + run.recordsParsed()
                                        + " record(s)); without the text log's ERROR SUMMARY the error "
                                        + "count is unknown, so the run cannot be called clean (keep the --log-file text beside it)"));
            }
        }
    }

    /** How the target ended under the tool, and whether what the tool found explains it. */
    private static void targetStatus(SanitizerRun run, boolean checkedAgain, List<Reason> reasons) {
        SanitizerOutput out = run.primary();
        String tool = run.tool().id();
        boolean defects = !run.unsuppressed().isEmpty();
        // a dead target is explained by what the tool found; else the job died and the rest was never checked
        boolean explained = defects
                || run.defects().stream().anyMatch(d -> d.kind().isAccessError() || d.kind() == Kind.DEVICE_ASSERT);
        if (checkedAgain && !explained && (out.appCrashed() || out.targetReturnedError())) {
            reasons.add(Reason.info(
                    "capture-conflict",
                    tool + ": the job died of its CUDA graph capture, broken by the sanitizer run's own "
                            + "PYTORCH_NO_CUDA_MEMORY_CACHING=1; the rerun with the caching allocator kept checked it past"
                            + " the capture"));
        } else if (out.appCrashed()) {
            if (explained) {
                reasons.add(Reason.info(
                        "app-crashed",
                        tool + ": the application then died under the tool (process didn't terminate successfully): "
                                + "expected after a device error, the sanitizer destroys the CUDA context"));
            } else {
                reasons.add(Reason.error(
                        "app-crashed",
                        tool + ": the application crashed under compute-sanitizer "
                                + "(process didn't terminate successfully) and the tool reported no error: a tool-induced crash, "
                                + "not a kernel bug, and nothing after it was checked"));
            }
        } else if (out.targetReturnedError()
                && !explained
                && out.toolFailures().isEmpty()
                && (run.text() == null || run.text().errorsTotal() != null)) {
            reasons.add(
                    Reason.error(
                            "target-failed",
                            tool + ": the application returned an error under compute-sanitizer (Target application "
                                    + "returned an error in " + out.source()
                                    + ") and the tool reported no error that explains it: "
                                    + "the job died (out of memory, an exception, a bad argument), so what it did not run was not checked"));
        }
    }

    private static void captureConflict(SanitizerRun run, List<Reason> reasons) {
        String tool = run.tool().id();
        reasons.add(Reason.error(
                "capture-conflict",
                tool
                        + ": the job captures CUDA graphs, and PYTORCH_NO_CUDA_MEMORY_CACHING=1 (set for the sanitizer "
                        + "run) broke the capture: the job was not checked past it. Not a bug in the job; "
                        + "`gpu-sanitize run` reruns the tool with the caching allocator kept, or rerun it with "
                        + "--keep-caching-allocator"));
    }

    /** Every error the tool counted must have been judged: not printed, or printed in a form not understood. */
    private void countedErrors(SanitizerRun run, List<Reason> reasons) {
        String tool = run.tool().id();
        boolean defects = !run.unsuppressed().isEmpty();
        Long total = run.errorsTotal();
        if (total != null && total > 0 && run.recordsParsed() == 0) {
            reasons.add(Reason.fail(
                    "unprinted-errors",
                    tool + ": compute-sanitizer counted " + total
                            + " error(s) but printed none, so they cannot be grouped (raise --print-limit)"));
        }
        Long notPrinted = run.text() == null ? null : run.text().errorsNotPrinted();
        if (notPrinted != null && notPrinted > 0) {
            reasons.add(Reason.info(
                    "print-limit",
                    tool + ": " + notPrinted + " of " + total
                            + " errors were not printed (print limit); defects are grouped from the printed ones"));
        }
        long unprinted = notPrinted == null ? 0 : notPrinted;
        long unjudged = 0;
        if (total != null && run.recordsParsed() > 0) {
            long counted =
                    total + (run.text().warningsTotal() == null ? 0 : run.text().warningsTotal());
            unjudged = Math.max(0, counted - unprinted - run.recordsParsed());
        }
        long unchecked = unprinted + unjudged;
        if (unchecked > 0 && !defects && run.recordsParsed() > 0) {
            String text = tool + ": " + unchecked + " counted error(s) were not judged ("
                    + describeUnchecked(unprinted, unjudged) + ") and every printed one was suppressed: "
                    + "they were not checked ("
                    + (unprinted > 0 ? "raise --print-limit or narrow the run" : "see the unrecognised lines below")
                    + ")";
            reasons.add(
                    policy.actionFor(run.tool(), true) == GateAction.FAIL
                            ? Reason.unstable("unprinted-unchecked", text)
                            : Reason.warning("unprinted-unchecked", text));
        } else if (unjudged > 0 && defects) {
            reasons.add(Reason.warning(
                    "unjudged-records",
                    tool + ": " + describeUnchecked(0, unjudged)
                            + "; the verdict rests on the records that were read"));
        }
    }

    /** Defects beyond the report's cap are counted, not listed, and still decide the verdict. */
    private void defectCap(SanitizerRun run, List<Reason> reasons) {
        String tool = run.tool().id();
        long suppressedOverflow = run.overflowRecords() - run.overflowUnsuppressedRecords();
        if (run.overflowUnsuppressedRecords() > 0) {
            GateAction a = policy.actionFor(run.tool(), true);
            String text = tool + ": more distinct defects than the report keeps (" + DefectGrouper.MAX_DEFECTS
                    + "): " + run.overflowUnsuppressedRecords()
                    + " record(s) of further unsuppressed defects are counted, not listed, and decide the verdict";
            if (a == GateAction.FAIL) {
                reasons.add(Reason.fail("defect-cap", text));
            } else if (a == GateAction.UNSTABLE) {
                reasons.add(Reason.unstable("defect-cap", text));
            }
        }
        if (suppressedOverflow > 0) {
            reasons.add(Reason.warning(
                    "defect-cap",
                    tool + ": more distinct defects than the report keeps; " + suppressedOverflow
                            + " record(s) of suppressed defects only counted"));
        }
    }

    /** What the readers noticed in the output, but for what the steps above already judged. */
    private static void inputProblems(SanitizerOutput out, List<Reason> reasons) {
        for (String p : out.problems()) {
            if (!p.startsWith("no ERROR SUMMARY")
                    && !p.startsWith("XML cut off")
                    && !p.startsWith("unreadable ERROR SUMMARY")
                    && !p.startsWith("unreadable RACECHECK SUMMARY")) {
                reasons.add(Reason.warning("input", out.source() + ": " + p));
            }
        }
    }

    private static String describeUnchecked(long unprinted, long unjudged) {
        List<String> parts = new ArrayList<>();
        if (unprinted > 0) {
            parts.add(unprinted + " error(s) were not printed");
        }
        if (unjudged > 0) {
            parts.add(unjudged + " counted error(s) were printed in a form this version does not recognise");
        }
        return String.join(", ", parts);
    }
}

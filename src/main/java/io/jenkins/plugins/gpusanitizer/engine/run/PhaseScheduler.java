package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the planned phases. Unless {@code --no-overlap}, the first phase(s) start beside the environment check (the
 * job's Python importing torch, seconds) and only what comes later waits for its answer. On one GPU the blocking run
 * runs beside the sanitizer runs, and the regression run beside them too when the card has room ({@link
 * RegressionPlan}), else after them; with several GPUs the independent ones at once ({@link PhasesAcrossGpus}).
 * Either way a blocking run still going when every sanitizer run ended clean is cut, and run again in full only if
 * the regression run fails. Records each result as it finishes (sanitizer, blocking, regression) and stops at the
 * first abort.
 */
final class PhaseScheduler {
    private final PhaseContext context;
    private final RunJournal journal;
    private final RegressionPhase regression;
    private final RunPlan plan;

    PhaseScheduler(PhaseContext context, RunJournal journal) {
        this.context = context;
        this.journal = journal;
        this.plan = RunPlan.of(context.spec());
        this.regression = new RegressionPhase(context);
        journal.throughput(regression::throughput);
    }

    /** @return true when aborted */
    boolean run() throws IOException {
        context.progress().say(plan.describe());
        String gpu = plan.firstGpu();
        return switch (plan.layout()) {
            case BESIDE -> runOverlapped(gpu);
            case ACROSS_GPUS -> new PhasesAcrossGpus(context, plan, this).run();
            case IN_ORDER -> runInOrder(gpu);
        };
    }

    /**
     * One GPU, one phase after the other; unless {@code --no-overlap} the first starts beside the environment check,
     * and a regression run after a sanitizer run says why it did not go beside it.
     *
     * @return true when aborted
     */
    private boolean runInOrder(String gpu) throws IOException {
        RunSpec spec = context.spec();
        boolean besideCheck = plan.besideCheck();
        for (Phase phase : spec.phases()) {
            List<PhaseResult> first = new ArrayList<>();
            // beside the check, results are recorded once it found the environment usable; else as each ends
            Outcome outcome = besideCheck
                    ? result -> {
                        first.add(result);
                        return PhaseResult.ABORTED.equals(result.status());
                    }
                    : this::record;
            if (runOne(phase, gpu, besideCheck, outcome) && !besideCheck) {
                return true;
            }
            if (besideCheck) {
                besideCheck = false;
                if (!answeredUsable(first)) {
                    return Thread.currentThread().isInterrupted();
                }
                for (PhaseResult result : first) {
                    if (record(result)) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /** What becomes of a phase's result; true: stop (an abort). */
    private interface Outcome {
        boolean take(PhaseResult result) throws IOException;
    }

    /** One phase; each tool's sanitizer run beside the check stops within a second of "unusable". */
    private boolean runOne(Phase phase, String gpu, boolean besideCheck, Outcome outcome) throws IOException {
        RunSpec spec = context.spec();
        EnvironmentCheck check = context.environmentCheck();
        switch (phase) {
            case SANITIZER -> {
                for (Tool tool : spec.tools()) {
                    for (PhaseResult result : new SanitizerPhase(context, tool).run(gpu)) {
                        if (outcome.take(result)) {
                            return true;
                        }
                    }
                }
                return false;
            }
            case BLOCKING -> {
                return outcome.take(
                        besideCheck
                                ? new BlockingPhase(context).runBesideCheck(gpu, check, () -> null)
                                : new BlockingPhase(context).run(gpu));
            }
            case REGRESSION -> {
                return outcome.take(
                        besideCheck
                                ? regression.runBesideCheck(gpu, check)
                                : regression.run(gpu, afterSanitizer(spec)));
            }
            default -> throw new IllegalStateException("unknown phase " + phase);
        }
    }

    /** The plan of a regression run after a sanitizer run on one GPU (said once), or null when none ran before it. */
    private RegressionPlan afterSanitizer(RunSpec spec) {
        if (!spec.phases().contains(Phase.SANITIZER)
                || spec.phases().indexOf(Phase.SANITIZER) > spec.phases().indexOf(Phase.REGRESSION)) {
            return null;
        }
        RegressionPlan plan = RegressionPlan.fixed(spec);
        announce(plan);
        if (plan != null) {
            context.reasons().add(Reason.info("regression-plan", plan.why()));
        }
        return plan;
    }

    /**
     * Waits for the environment check's answer after the phases started beside it; when it found the environment
     * unusable their results are set aside (their files kept, none counts) and false is returned.
     */
    private boolean answeredUsable(List<PhaseResult> besideCheck) throws IOException {
        try {
            if (EnvironmentCheck.usable(awaitCheck())) {
                return true;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!Thread.currentThread().isInterrupted()) {
            setAside(besideCheck);
        } else {
            for (PhaseResult result : besideCheck) {
                record(result); // an abort: what ran is evidence
            }
        }
        return false;
    }

    /** A blocking run still going once every sanitizer run ended clean is cut (see {@link #runOverlapped}). */
    void cutBlocking(AtomicReference<String> cut) {
        if (regressionRunsWholeJob()) {
            // what is left of the blocking run only locates a failure, and the regression run, which runs the
            // whole job, would show one: cut it now, run it in full only if the regression run fails
            cut.set(BlockingPhase.CUT + " (the regression run runs the whole job; the blocking run runs again"
                    + " in full if that fails)");
        }
    }

    /**
     * Whether the regression run will run the whole job, as the blocking run would: nothing stops it at a target (a
     * given one, or a multiple of a given or recorded failure time; the blocking run, still going, offered none) and
     * its time limit is no shorter than the blocking run's. Otherwise a fault late in the job is reached by the
     * blocking run alone, which must not be cut.
     */
    private boolean regressionRunsWholeJob() {
        RunSpec spec = context.spec();
        return spec.phases().contains(Phase.REGRESSION)
                && spec.regressionSeconds() == null
                && context.reference().failureSeconds() == null
                && spec.timeoutSeconds(Phase.REGRESSION) >= spec.timeoutSeconds(Phase.BLOCKING);
    }

    /**
     * The regression run, alone; when it fails after the blocking run was cut, the blocking run again in full.
     *
     * @return true when aborted
     */
    boolean runRegression(String gpu, PhaseResult blocking) throws IOException {
        return recordRegression(gpu, blocking, regression.run(gpu));
    }

    /** @return true when aborted */
    private boolean recordRegression(String gpu, PhaseResult blocking, PhaseResult regressed) throws IOException {
        if (record(regressed)) {
            return true;
        }
        if (blocking != null && BlockingPhase.wasCut(blocking) && PhaseResult.FAILED.equals(regressed.status())) {
            return runBlockingAgain(gpu, blocking, regressed);
        }
        return false;
    }

    /**
     * One GPU: the blocking run beside the sanitizer runs (it is short and its traceback does not depend on what else
     * runs on the card), and the regression run beside them too when the card has room ({@link RegressionBeside}),
     * else after them, alone. A blocking or regression run that ran out of memory beside the sanitizer run is run
     * again alone: the card was shared, so that failure is not the job's.
     *
     * @return true when aborted
     */
    private boolean runOverlapped(String gpu) throws IOException {
        RunSpec spec = context.spec();
        EnvironmentCheck check = context.environmentCheck();
        AtomicReference<String> cut = new AtomicReference<>();
        boolean regressionPlanned = spec.phases().contains(Phase.REGRESSION);
        RegressionPlan fixed = regressionPlanned ? RegressionPlan.fixed(spec) : null;
        boolean watch = regressionPlanned && fixed == null;
        BesideRun blocking =
                new BesideRun(() -> new BlockingPhase(context, watch).runBesideCheck(gpu, check, cut::get));
        RegressionBeside beside = watch ? new RegressionBeside(context, regression, gpu, blocking) : null;
        BesideRun besideRun = beside == null ? null : new BesideRun(beside);
        context.progress()
                .say("blocking runs beside the sanitizer on GPU " + gpu + ", both beside the environment check"
                        + (watch ? ", the regression run beside them too if the card has room" : "")
                        + " (--no-overlap: one after the other)");
        announce(fixed);
        SanitizerRuns sanitizers = runSanitizers(gpu, blocking, beside, besideRun);
        if (beside != null) {
            beside.sanitizerEnded();
        }
        if (sanitizers == SanitizerRuns.CLEAN) {
            cutBlocking(cut);
        }
        PhaseResult result = blocking.result();
        PhaseResult besideResult = besideRun == null ? null : besideRun.result();
        if (sanitizers == SanitizerRuns.UNUSABLE) {
            // the regression run starts only after a usable answer: none ran
            if (result != null) {
                setAside(List.of(result));
            }
            return false;
        }
        boolean aborted = sanitizers == SanitizerRuns.ABORTED;
        if (result == null) {
            recordAll(besideResult);
            return true;
        }
        String again = aborted ? null : RunPlan.againAlone(context.dir(), result, "the blocking run");
        if (again != null) {
            Path kept = RunDirectory.setAside(context.dir().dir(Phase.BLOCKING.id()), "beside-sanitizer");
            context.progress().say(again + " (the first is kept in " + kept.getFileName() + ")");
            context.reference().forget(ReferenceTime.BLOCKING);
            result = new BlockingPhase(context).run(gpu);
        }
        // recorded even after an abort: it ran, and what it found is evidence
        if (record(result) || aborted) {
            recordAll(besideResult);
            return true;
        }
        return regressionPlanned
                && regressionAfterOverlap(gpu, result, beside == null ? fixed : beside.plan(), besideResult);
    }

    /**
     * The regression run's result when it ran beside the sanitizer run, or it alone now: planned after, or run again
     * after it ran out of memory beside (its first run kept as {@code regression-beside-sanitizer}).
     *
     * @return true when aborted
     */
    private boolean regressionAfterOverlap(String gpu, PhaseResult blocking, RegressionPlan plan, PhaseResult beside)
            throws IOException {
        RegressionPlan next = plan;
        if (beside != null) {
            String again = RunPlan.againAlone(context.dir(), beside, "the regression run");
            if (again == null) {
                context.reasons().add(Reason.info("regression-plan", plan.why()));
                return recordRegression(gpu, blocking, beside);
            }
            Path kept = RunDirectory.setAside(context.dir().dir(Phase.REGRESSION.id()), "beside-sanitizer");
            context.reference().forget(ReferenceTime.REGRESSION);
            next = RegressionPlan.after(again + " (the first is kept in " + kept.getFileName() + ")");
            context.progress().say(next.why());
        }
        if (next != null) {
            context.reasons().add(Reason.info("regression-plan", next.why()));
        }
        return recordRegression(gpu, blocking, regression.run(gpu, next));
    }

    private void recordAll(PhaseResult result) throws IOException {
        if (result != null) {
            record(result);
        }
    }

    /** How the sanitizer runs beside the blocking run ended. */
    private enum SanitizerRuns {
        CLEAN,
        FOUND,
        UNUSABLE,
        ABORTED
    }

    /**
     * The sanitizer runs, one tool after the other, beside the blocking (and regression) run; stopped by an abort or
     * an unusable environment (their results then set aside).
     */
    private SanitizerRuns runSanitizers(String gpu, BesideRun blocking, RegressionBeside beside, BesideRun besideRun)
            throws IOException {
        // null on a runner failure (a lease a resumed runner took over): the phases beside are left to run on
        SanitizerRuns ended = null;
        try {
            boolean clean = true;
            for (Tool tool : context.spec().tools()) {
                SanitizerPhase phase = new SanitizerPhase(context, tool);
                List<PhaseResult> results = phase.run(gpu);
                if (phase.outOfMemoryFindingNothing(results)
                        && !Thread.currentThread().isInterrupted()) {
                    results = aloneAfterBeside(phase, gpu, results, blocking, beside, besideRun);
                }
                Environment answer;
                try {
                    answer = awaitCheck();
                } catch (InterruptedException e) {
                    for (PhaseResult result : results) {
                        record(result); // an abort before the check answered: what ran is evidence (answeredUsable)
                    }
                    throw e;
                }
                if (!EnvironmentCheck.usable(answer)) {
                    setAside(results);
                    ended = SanitizerRuns.UNUSABLE;
                    return ended;
                }
                for (PhaseResult result : results) {
                    if (record(result)) {
                        ended = SanitizerRuns.ABORTED;
                        return ended;
                    }
                }
                clean &= phase.endedClean(results);
            }
            ended = clean ? SanitizerRuns.CLEAN : SanitizerRuns.FOUND;
            return ended;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ended = SanitizerRuns.ABORTED;
            return ended;
        } finally {
            if (ended == SanitizerRuns.ABORTED || Thread.currentThread().isInterrupted()) {
                blocking.abort(); // its process is stopped through its supervisor, like any abort
                if (besideRun != null) {
                    besideRun.abort();
                }
            }
        }
    }

    /**
     * A sanitizer run that ran out of GPU memory beside the blocking (and perhaps the regression) run, having found
     * nothing: the shared card, not the job, may have failed it. Its files are set aside ({@code
     * sanitizer-TOOL-shared-card}, kept, not judged), and once the runs beside it ended it runs again alone; a job
     * that runs out of memory alone as well is judged on that run, as any. A regression run not yet started goes
     * after it: started while the rerun waits, it would run beside no sanitizer run yet be judged as one that did.
     */
    private List<PhaseResult> aloneAfterBeside(
            SanitizerPhase phase,
            String gpu,
            List<PhaseResult> failed,
            BesideRun blocking,
            RegressionBeside beside,
            BesideRun besideRun)
            throws IOException {
        List<String> kept = new ArrayList<>();
        for (PhaseResult r : failed) {
            kept.add(String.valueOf(RunDirectory.setAside(context.dir().dir(r.directory()), "shared-card")
                    .getFileName()));
        }
        String why = failed.get(failed.size() - 1).name()
                + " ran out of GPU memory on the card it shared with the blocking run"
                + (besideRun == null ? "" : " (and the regression run, when it went beside)")
                + ", having found nothing: run again alone once they ended (the first is kept in "
                + String.join(", ", kept) + ")";
        context.progress().say(why);
        context.reasons().add(Reason.info("sanitizer-rerun", why));
        if (beside != null) {
            beside.sanitizerEnded("the sanitizer run ran out of GPU memory on the shared card and runs again alone"
                    + " first: the regression run goes after it, alone");
        }
        blocking.result();
        if (besideRun != null) {
            besideRun.result();
        }
        return phase.run(gpu);
    }

    /** Says once, on the console, a regression plan known before anything ran. */
    private void announce(RegressionPlan plan) {
        if (plan != null) {
            context.progress().say(plan.why());
        }
    }

    /**
     * The regression run failed after the blocking run was cut short: the blocking run again, alone and in full,
     * for the line that failed (its first, cut run is kept beside it and replaced in the record).
     *
     * @return true when aborted
     */
    private boolean runBlockingAgain(String gpu, PhaseResult cut, PhaseResult regressed) throws IOException {
        // a resumed run that cut it again keeps both cut runs
        Path kept = RunDirectory.setAside(context.dir().dir(Phase.BLOCKING.id()), "cut");
        context.progress()
                .say("the regression run failed (" + regressed.name() + " " + regressed.status()
                        + ") after the blocking run was cut: the blocking run again, in full (the cut one is kept in "
                        + kept.getFileName() + ")");
        PhaseResult full = new BlockingPhase(context)
                .run(gpu)
                .withNote("run again in full after the regression run failed; the run cut after "
                        + ProgressLog.seconds(cut.wallSeconds()) + " s is kept in "
                        + kept.getFileName());
        journal.replace(cut, full);
        context.progress().finished(full, context.dir());
        return PhaseResult.ABORTED.equals(full.status())
                || Thread.currentThread().isInterrupted();
    }

    /** The check's answer; the sanitizer run lasts longer than the check, so this rarely waits. */
    private Environment awaitCheck() throws InterruptedException {
        return context.environmentCheck().await();
    }

    /**
     * A sanitizer run started beside a check that then found the environment unusable: not a result of the run
     * (the run ends as if no phase ran), but its files are kept beside it as evidence.
     */
    void setAside(List<PhaseResult> results) throws IOException {
        for (PhaseResult result : results) {
            Path ran = context.dir().dir(result.directory());
            if (Files.exists(ran)) {
                Path kept = EnvironmentCheck.setAside(ran);
                context.progress()
                        .say("environment unusable: " + result.name() + " (started beside the check) was stopped;"
                                + " its files are kept in " + kept.getFileName() + ", no phase result counts");
            }
        }
    }

    /**
     * Records a result in the journal and on the console, under one lock for every layout ({@link PhasesAcrossGpus}
     * records through it too).
     *
     * @return true when the run must stop here: the phase was aborted or this thread interrupted
     */
    synchronized boolean record(PhaseResult result) throws IOException {
        journal.add(result);
        context.progress().finished(result, context.dir());
        return PhaseResult.ABORTED.equals(result.status())
                || Thread.currentThread().isInterrupted();
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs the planned phases: on one GPU the blocking run beside the sanitizer runs, then the regression
 * run (or all in order with overlap off); with several GPUs the independent ones at once. Either way a
 * blocking run still going when every sanitizer run ended clean is cut, and run again in full only if the
 * regression run fails. Records each result as it finishes and stops at the first abort.
 */
final class PhaseScheduler {
    private final PhaseContext context;
    private final RunJournal journal;
    private final RegressionPhase regression;

    PhaseScheduler(PhaseContext context, RunJournal journal) {
        this.context = context;
        this.journal = journal;
        this.regression = new RegressionPhase(context);
        journal.throughput(regression::throughput);
    }

    /**
     * Whether the sanitizer run starts beside the environment check: on one GPU with the blocking run beside it
     * (the default), the check's seconds are hidden too. Otherwise the check answers before any phase.
     */
    static boolean startsBesideCheck(RunSpec spec) {
        return spec.gpus().size() == 1
                && spec.overlapBlocking()
                && spec.phases().contains(Phase.SANITIZER)
                && spec.phases().contains(Phase.BLOCKING)
                && !spec.tools().isEmpty();
    }

    /** @return true when aborted */
    boolean run() throws IOException {
        RunSpec spec = context.spec();
        if (startsBesideCheck(spec)) {
            return runOverlapped(spec.gpus().get(0));
        }
        if (spec.gpus().size() > 1) {
            return runInParallel();
        }
        String gpu = spec.gpus().get(0);
        for (Phase phase : spec.phases()) {
            switch (phase) {
                case SANITIZER -> {
                    for (Tool tool : spec.tools()) {
                        for (PhaseResult result : new SanitizerPhase(context, tool).run(gpu)) {
                            if (record(result)) {
                                return true;
                            }
                        }
                    }
                }
                case BLOCKING -> {
                    if (record(new BlockingPhase(context).run(gpu))) {
                        return true;
                    }
                }
                case REGRESSION -> {
                    if (record(regression.run(gpu))) {
                        return true;
                    }
                }
            }
        }
        return false;
    }

    /**
     * With several GPUs the phases that do not depend on each other — each sanitizer tool's run and
     * the blocking run — run at once, one GPU each (round robin); the regression run, which needs the
     * blocking run's failure time, follows on the first GPU.
     *
     * @return true when aborted
     */
    private boolean runInParallel() throws IOException {
        RunSpec spec = context.spec();
        List<String> gpus = spec.gpus();
        List<Callable<List<PhaseResult>>> independent = new ArrayList<>();
        List<SanitizerPhase> sanitizers = new ArrayList<>();
        AtomicReference<String> cut = new AtomicReference<>();
        int next = 0;
        if (spec.phases().contains(Phase.SANITIZER)) {
            for (Tool tool : spec.tools()) {
                String gpu = gpus.get(next++ % gpus.size());
                SanitizerPhase phase = new SanitizerPhase(context, tool);
                sanitizers.add(phase);
                independent.add(() -> phase.run(gpu));
            }
        }
        if (spec.phases().contains(Phase.BLOCKING)) {
            String gpu = gpus.get(next++ % gpus.size());
            independent.add(() -> List.of(new BlockingPhase(context).run(gpu, cut::get)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(independent.size(), gpus.size())));
        List<Future<List<PhaseResult>>> futures = new ArrayList<>();
        independent.forEach(task -> futures.add(pool.submit(task)));
        pool.shutdown();
        boolean aborted = false;
        boolean clean = !sanitizers.isEmpty();
        PhaseResult blocking = null;
        for (int i = 0; i < futures.size(); i++) {
            try {
                List<PhaseResult> results = futures.get(i).get();
                for (PhaseResult result : results) {
                    aborted |= record(result);
                }
                if (i < sanitizers.size()) {
                    clean &= sanitizers.get(i).endedClean(results);
                    if (i == sanitizers.size() - 1 && clean && !aborted) {
                        cutBlocking(cut); // the sanitizer futures come first: the blocking run may still be going
                    }
                } else {
                    blocking = results.get(0);
                }
            } catch (InterruptedException e) {
                // each phase kills its own tree and records itself as aborted
                futures.forEach(other -> other.cancel(true));
                Thread.currentThread().interrupt();
                aborted = true;
                break;
            } catch (ExecutionException e) {
                throw new IOException("phase failed: " + e.getCause(), e.getCause());
            }
        }
        if (aborted) {
            awaitQuietly(pool);
            return true;
        }
        if (spec.phases().contains(Phase.REGRESSION)) {
            return runRegression(gpus.get(0), blocking);
        }
        return false;
    }

    /** A blocking run still going once every sanitizer run ended clean is cut (see {@link #runOverlapped}). */
    private void cutBlocking(AtomicReference<String> cut) {
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
    private boolean runRegression(String gpu, PhaseResult blocking) throws IOException {
        PhaseResult regressed = regression.run(gpu);
        if (record(regressed)) {
            return true;
        }
        if (blocking != null && BlockingPhase.wasCut(blocking) && PhaseResult.FAILED.equals(regressed.status())) {
            return runBlockingAgain(gpu, blocking, regressed);
        }
        return false;
    }

    /**
     * One GPU: the blocking run beside the sanitizer runs (it is short and its traceback does not depend
     * on what else runs on the card), then the regression run alone, whose memory curve is judged. A
     * blocking run that ran out of memory beside the sanitizer is run again alone: the card was shared,
     * so that failure is not the job's.
     *
     * @return true when aborted
     */
    private boolean runOverlapped(String gpu) throws IOException {
        RunSpec spec = context.spec();
        EnvironmentCheck check = context.environmentCheck();
        AtomicReference<String> cut = new AtomicReference<>();
        BesideRun blocking = new BesideRun(() -> new BlockingPhase(context).runBesideCheck(gpu, check, cut::get));
        context.progress()
                .say("blocking runs beside the sanitizer on GPU " + gpu + ", both beside the environment check"
                        + " (--no-overlap: one after the other)");
        boolean aborted = false;
        boolean unusable = false;
        boolean clean = true;
        try {
            sanitizer:
            for (Tool tool : spec.tools()) {
                SanitizerPhase phase = new SanitizerPhase(context, tool);
                List<PhaseResult> results = phase.run(gpu);
                if (!EnvironmentCheck.usable(awaitCheck())) {
                    setAside(results);
                    unusable = true;
                    break;
                }
                for (PhaseResult result : results) {
                    if (record(result)) {
                        aborted = true;
                        break sanitizer;
                    }
                }
                clean &= phase.endedClean(results);
            }
            if (!aborted && !unusable && clean) {
                cutBlocking(cut);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            aborted = true;
        } finally {
            if (aborted || Thread.currentThread().isInterrupted()) {
                blocking.abort(); // its process is stopped through its supervisor, like any abort
            }
        }
        PhaseResult result = blocking.result();
        if (unusable) {
            if (result != null) {
                setAside(List.of(result));
            }
            return false;
        }
        if (result == null) {
            return true;
        }
        if (!aborted && ranOutOfMemory(result)) {
            Path kept = RunDirectory.setAside(context.dir().dir(Phase.BLOCKING.id()), "beside-sanitizer");
            context.progress()
                    .say(
                            "the blocking run ran out of GPU memory beside the sanitizer: run again alone (the first is kept in "
                                    + kept.getFileName() + ")");
            context.reference().forget();
            result = new BlockingPhase(context).run(gpu);
        }
        // recorded even after an abort: it ran, and what it found is evidence
        if (record(result) || aborted) {
            return true;
        }
        return spec.phases().contains(Phase.REGRESSION) && runRegression(gpu, result);
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
    private void setAside(List<PhaseResult> results) throws IOException {
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

    /** A phase on a thread of its own, beside the scheduler's; an abort interrupts it and waits for its result. */
    private static final class BesideRun {
        private final Thread thread;
        private volatile PhaseResult result;
        private volatile Throwable failure;

        BesideRun(Callable<PhaseResult> phase) {
            thread = new Thread(
                    () -> {
                        try {
                            result = phase.call();
                        } catch (Throwable e) {
                            failure = e;
                        }
                    },
                    "gpu-sanitize-beside");
            thread.setDaemon(true);
            thread.start();
        }

        void abort() {
            thread.interrupt();
        }

        /** Waits for it (an interrupt of the waiting thread aborts it first); null when it produced nothing. */
        PhaseResult result() throws IOException {
            boolean interrupted = false;
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                    thread.interrupt();
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
            if (failure instanceof IOException io) {
                throw io;
            }
            if (failure instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (failure != null) {
                throw new IOException("phase failed: " + failure, failure);
            }
            return result;
        }
    }

    private boolean ranOutOfMemory(PhaseResult result) {
        if (!PhaseResult.FAILED.equals(result.status())) {
            return false;
        }
        Path stderr = context.dir().dir(Phase.BLOCKING.id()).resolve(RunLayout.STDERR);
        try (var lines = Files.lines(stderr, StandardCharsets.ISO_8859_1)) {
            return lines.anyMatch(line -> line.contains("CUDA out of memory") || line.contains("OutOfMemoryError"));
        } catch (IOException | UncheckedIOException e) {
            return false;
        }
    }

    private void awaitQuietly(ExecutorService pool) {
        RunSpec spec = context.spec();
        boolean interrupted = Thread.interrupted();
        try {
            pool.awaitTermination(spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + 30L, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return true when the run must stop here: the phase was aborted or this thread interrupted */
    private synchronized boolean record(PhaseResult result) throws IOException {
        journal.add(result);
        context.progress().finished(result, context.dir());
        return PhaseResult.ABORTED.equals(result.status())
                || Thread.currentThread().isInterrupted();
    }
}

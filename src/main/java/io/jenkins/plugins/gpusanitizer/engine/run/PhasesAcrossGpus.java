package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The phases of a run across several GPUs ({@link RunPlan.Layout#ACROSS_GPUS}): the only path with a pool of
 * threads, so the waiting, stopping and grace of its phases live here. Results are recorded, the blocking run cut
 * and the regression run run through the {@link PhaseScheduler} that started it, so every layout records under the
 * one lock, in the one journal.
 */
final class PhasesAcrossGpus {
    private final PhaseContext context;
    private final RunPlan plan;
    private final PhaseScheduler scheduler;

    PhasesAcrossGpus(PhaseContext context, RunPlan plan, PhaseScheduler scheduler) {
        this.context = context;
        this.plan = plan;
        this.scheduler = scheduler;
    }

    /**
     * With several GPUs the phases that do not depend on each other — each sanitizer tool's run and
     * the blocking run — run at once, one GPU each (round robin); the regression run, which needs the
     * blocking run's failure time, follows on the first GPU.
     *
     * @return true when aborted
     */
    boolean run() throws IOException {
        RunSpec spec = context.spec();
        List<String> gpus = spec.gpus();
        List<Callable<List<PhaseResult>>> independent = new ArrayList<>();
        List<SanitizerPhase> sanitizers = new ArrayList<>();
        AtomicReference<String> cut = new AtomicReference<>();
        if (spec.phases().contains(Phase.SANITIZER)) {
            for (Tool tool : spec.tools()) {
                String gpu = plan.gpuOf(RunDirectory.sanitizerDir(tool));
                SanitizerPhase phase = new SanitizerPhase(context, tool);
                sanitizers.add(phase);
                independent.add(() -> phase.run(gpu));
            }
        }
        boolean besideCheck = plan.besideCheck();
        if (spec.phases().contains(Phase.BLOCKING)) {
            String gpu = plan.gpuOf(Phase.BLOCKING.id());
            EnvironmentCheck check = context.environmentCheck();
            independent.add(() -> List.of(
                    besideCheck
                            ? new BlockingPhase(context).runBesideCheck(gpu, check, cut::get)
                            : new BlockingPhase(context).run(gpu, cut::get)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(independent.size(), gpus.size())));
        List<Future<List<PhaseResult>>> futures = new ArrayList<>();
        independent.forEach(task -> futures.add(pool.submit(task)));
        pool.shutdown();
        boolean aborted = false;
        boolean clean = !sanitizers.isEmpty();
        PhaseResult blocking = null;
        if (besideCheck && !usableBeside(pool, futures)) {
            awaitQuietly(pool);
            return Thread.currentThread().isInterrupted();
        }
        for (int i = 0; i < futures.size(); i++) {
            try {
                List<PhaseResult> results = futures.get(i).get();
                for (PhaseResult result : results) {
                    aborted |= scheduler.record(result);
                }
                if (i < sanitizers.size()) {
                    clean &= sanitizers.get(i).endedClean(results);
                    if (i == sanitizers.size() - 1 && clean && !aborted) {
                        // the sanitizer futures come first: the blocking run may still be going
                        scheduler.cutBlocking(cut);
                    }
                } else {
                    blocking = results.get(0);
                }
            } catch (InterruptedException e) {
                abortAndRecord(pool, futures, i);
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
            return scheduler.runRegression(gpus.get(0), blocking);
        }
        return false;
    }

    /**
     * The independent phases started beside the environment check: true once it found the environment usable; else
     * (they stop within a second) their results are set aside and false is returned.
     */
    private boolean usableBeside(ExecutorService pool, List<Future<List<PhaseResult>>> futures) throws IOException {
        try {
            if (EnvironmentCheck.usable(context.environmentCheck().await())) {
                return true;
            }
            List<PhaseResult> stopped = new ArrayList<>();
            for (Future<List<PhaseResult>> future : futures) {
                stopped.addAll(future.get());
            }
            scheduler.setAside(stopped);
        } catch (InterruptedException e) {
            abortAndRecord(pool, futures, 0);
        } catch (ExecutionException e) {
            throw new IOException("phase failed: " + e.getCause(), e.getCause());
        }
        return false;
    }

    /**
     * An abort while the independent phases run: each running one is interrupted (its supervisor stops its process
     * and it returns its result, aborted) and what they return from FROM on is recorded, evidence of what ran, as on
     * one GPU; one not yet started never runs. The interrupt stays set.
     */
    private void abortAndRecord(ExecutorService pool, List<Future<List<PhaseResult>>> futures, int from)
            throws IOException {
        // the futures of the tasks that never started (the pool queues each future itself)
        List<Object> neverStarted = List.copyOf(pool.shutdownNow());
        Thread.interrupted(); // set again below: until then, this thread waits for the phases to stop
        try {
            for (Future<List<PhaseResult>> future : futures.subList(from, futures.size())) {
                if (neverStarted.contains(future)) {
                    continue;
                }
                try {
                    for (PhaseResult result : future.get(stopGraceSeconds(), TimeUnit.SECONDS)) {
                        scheduler.record(result);
                    }
                } catch (ExecutionException | TimeoutException | CancellationException e) {
                    // nothing to record: the runner's own failure, or a phase that did not stop in time
                }
            }
        } catch (InterruptedException e) {
            // a second interrupt: stop waiting
        } finally {
            Thread.currentThread().interrupt();
        }
    }

    /** How long a stopped phase is given to end: its kill graces and half a minute. */
    private long stopGraceSeconds() {
        RunSpec spec = context.spec();
        return spec.killGraceSeconds() + spec.toolWriteGraceSeconds() + 30L;
    }

    /** Gives the pool's phases their grace to stop; this thread's interrupt is kept, not lost. */
    private void awaitQuietly(ExecutorService pool) {
        boolean interrupted = Thread.interrupted();
        try {
            pool.awaitTermination(stopGraceSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}

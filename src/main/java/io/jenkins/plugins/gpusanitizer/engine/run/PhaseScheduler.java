package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Runs the planned phases in order on one GPU, or with several GPUs the independent ones at once;
 * records each result as it finishes and stops at the first abort.
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

    /** @return true when aborted */
    boolean run() throws IOException {
        RunSpec spec = context.spec();
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
        int next = 0;
        if (spec.phases().contains(Phase.SANITIZER)) {
            for (Tool tool : spec.tools()) {
                String gpu = gpus.get(next++ % gpus.size());
                independent.add(() -> new SanitizerPhase(context, tool).run(gpu));
            }
        }
        if (spec.phases().contains(Phase.BLOCKING)) {
            String gpu = gpus.get(next++ % gpus.size());
            independent.add(() -> List.of(new BlockingPhase(context).run(gpu)));
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(independent.size(), gpus.size())));
        List<Future<List<PhaseResult>>> futures = new ArrayList<>();
        independent.forEach(task -> futures.add(pool.submit(task)));
        pool.shutdown();
        boolean aborted = false;
        for (Future<List<PhaseResult>> future : futures) {
            try {
                for (PhaseResult result : future.get()) {
                    aborted |= record(result);
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
            return record(regression.run(gpus.get(0)));
        }
        return false;
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

package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * On one GPU, the regression run beside the sanitizer run: watches the blocking run beside the sanitizer run until it
 * shows what the job needs (its first {@link RunSpec#roomCheckSeconds()} once the card holds at least a CUDA context
 * more, never the seconds of a job still importing its libraries; or its end, when the figures cover all of it; sooner
 * when the card has room for the job several times over, {@link RegressionPlan#early}, or at once for the reference
 * build's job, {@link RegressionPlan#fromReference}), decides ({@link
 * RegressionPlan}) and, when the card has room and the sanitizer run is still going, starts the regression
 * run. Runs on a thread of its own; its result is null when the regression run goes after the sanitizer run.
 */
final class RegressionBeside implements Callable<PhaseResult> {
    /** The blocking run beside the sanitizer run, as the watcher sees it. */
    interface Blocking {
        /** Waits at most that long for its end; true once it ended. */
        boolean awaitEnd(long millis) throws InterruptedException;

        /** Its result once it ended (null while it runs or when it produced none). */
        PhaseResult ended();
    }

    private static final long POLL_MILLIS = 500;

    /** From when the card may already show room enough ({@link RegressionPlan#early}). */
    static final double EARLY_SECONDS = 3;

    private final PhaseContext context;
    private final RegressionPhase regression;
    private final String gpu;
    private final Blocking blocking;
    /** Why the regression run now goes after the sanitizer runs, once they ended or a rerun of theirs comes first. */
    private String sanitizerEnded;

    private volatile RegressionPlan plan;

    RegressionBeside(PhaseContext context, RegressionPhase regression, String gpu, Blocking blocking) {
        this.context = context;
        this.regression = regression;
        this.gpu = gpu;
        this.blocking = blocking;
    }

    /**
     * The sanitizer runs ended: from now on the regression run goes after them. Decided under the same lock as the
     * plan, so a regression run is marked beside only when it was planned while the sanitizer run still went.
     */
    synchronized void sanitizerEnded() {
        sanitizerEnded("the sanitizer run ended before the job's GPU memory was known");
    }

    /**
     * From now on the regression run goes after the sanitizer runs, for this reason (the first one given stays):
     * a sanitizer run that must run again alone ended, and a regression run started now would run beside no sanitizer
     * run, yet be judged as one that did.
     */
    synchronized void sanitizerEnded(String why) {
        if (sanitizerEnded == null) {
            sanitizerEnded = why;
        }
    }

    /** The plan once decided, else null (the watcher was stopped before: an abort, an unusable environment). */
    RegressionPlan plan() {
        return plan;
    }

    @Override
    public PhaseResult call() throws Exception {
        try {
            RegressionPlan decided = awaitPlan();
            plan = decided;
            context.progress().say(decided.why());
            if (!decided.beside()
                    || !EnvironmentCheck.usable(context.environmentCheck().await())) {
                return null;
            }
            return regression.run(gpu, decided);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // an abort: nothing was started, or the phase recorded its stop
            return null;
        }
    }

    private RegressionPlan awaitPlan() throws InterruptedException {
        long begin = System.nanoTime();
        Path csv = context.dir().dir(Phase.BLOCKING.id()).resolve(RunLayout.MEMORY_CSV);
        int watch = context.spec().roomCheckSeconds();
        Double reference = ReferenceBuild.peakMiB(context.spec(), context.progress());
        while (true) {
            boolean ended = blocking.awaitEnd(POLL_MILLIS); // wakes at the blocking run's end
            double watched = (System.nanoTime() - begin) / 1e9;
            RegressionPlan decided = null;
            if (ended) {
                PhaseResult result = blocking.ended();
                decided = result != null && context.dir().ranOutOfMemory(result)
                        ? RegressionPlan.after("the blocking run ran out of GPU memory beside the sanitizer run")
                        : RegressionPlan.fromCard(CardMemory.read(csv), watched, true);
            } else {
                // the reference build's need, where it fits, decides at once: no watch
                decided = reference == null ? null : RegressionPlan.fromReference(CardMemory.read(csv), reference);
                if (decided == null && watched >= watch) {
                    decided = RegressionPlan.afterWatch(CardMemory.read(csv), watched);
                } else if (decided == null && watched >= EARLY_SECONDS) {
                    decided = RegressionPlan.early(CardMemory.read(csv), watched);
                }
            }
            synchronized (this) {
                if (sanitizerEnded != null) {
                    return RegressionPlan.after(sanitizerEnded);
                }
                if (decided != null) {
                    return decided;
                }
            }
        }
    }
}

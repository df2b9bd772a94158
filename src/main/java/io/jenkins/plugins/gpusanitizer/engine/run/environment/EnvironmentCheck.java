package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * The environment check of one run. The quick commands (driver, GPUs, nvcc, compute-sanitizer) have answered
 * when it exists; the job's Python importing torch — 4-6 s of a gate's fixed cost on the H200
 * (records/h200-2026-12-04-gpu-minutes-before.zip.xz) — answers on a thread of its own, so that the first phase(s) can
 * start beside it and be stopped if the answer is "incompatible". Whoever needs the whole environment waits for it.
 */
public final class EnvironmentCheck {
    /** What the run does with the answer once it is known: record it, print it, turn its findings into reasons. */
    public interface Settler {
        void known(Environment environment);

        void failed(RunException e);
    }

    private final Environment partial;
    private final CompletableFuture<Environment> whole;
    /** The thread that runs the Python part; null for a check already answered. */
    private final Thread checking;

    private final String nvidiaSmi;

    private EnvironmentCheck(
            Environment partial, CompletableFuture<Environment> whole, Thread checking, String nvidiaSmi) {
        this.partial = partial;
        this.whole = whole;
        this.checking = checking;
        this.nvidiaSmi = nvidiaSmi;
    }

    /** Starts the Python part; the settler hears the answer on the checking thread, before any waiter does. */
    public static EnvironmentCheck start(
            EnvironmentProbe probe, RunSpec spec, EnvironmentProbe.Devices devices, Settler settler) {
        CompletableFuture<Environment> whole = new CompletableFuture<>();
        Thread thread = new Thread(
                () -> {
                    try {
                        Environment environment = probe.withPython(spec, devices);
                        settler.known(environment);
                        whole.complete(environment);
                    } catch (RunLease.Superseded e) {
                        whole.completeExceptionally(e);
                    } catch (RunException e) {
                        settler.failed(e);
                        whole.complete(null);
                    } catch (Throwable e) {
                        whole.completeExceptionally(e);
                    }
                },
                "gpu-sanitize-environment-check");
        thread.setDaemon(true);
        thread.start();
        return new EnvironmentCheck(devices.partial(), whole, thread, devices.nvidiaSmi());
    }

    /** A check already answered. */
    static EnvironmentCheck known(Environment environment) {
        return new EnvironmentCheck(environment, CompletableFuture.completedFuture(environment), null, null);
    }

    /** The nvidia-smi the quick commands ran, or null when not known (then it is looked up). */
    public String nvidiaSmi() {
        return nvidiaSmi;
    }

    /** What the quick commands found: enough for the sanitizer run's command line. */
    public Environment partial() {
        return partial;
    }

    /**
     * Waits for the whole answer.
     *
     * @return the environment, or null when the check itself failed (its reason is recorded)
     * @throws InterruptedException when the run is aborted meanwhile
     */
    public Environment await() throws InterruptedException {
        try {
            return whole.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime; // a lost lease (RunLease.Superseded) among them
            }
            throw new IllegalStateException("environment check failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * Returns once the check has ended, whatever happened to the run. An aborted run (this thread interrupted, before
     * or while it waits) stops the check's command first, through its supervisor: the run must not return while its
     * check still runs and writes into the run directory. The interrupt stays set for the caller.
     */
    public void end() {
        if (checking == null) {
            return;
        }
        boolean aborted = Thread.interrupted();
        while (true) {
            if (aborted) {
                checking.interrupt();
            }
            try {
                checking.join();
                break;
            } catch (InterruptedException e) {
                aborted = true;
            }
        }
        if (aborted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Once {@link #end ended}: throws what the check threw (a lost lease among them), as {@link #await} does. */
    public void rethrowFailure() {
        if (!whole.isCompletedExceptionally()) {
            return;
        }
        try {
            whole.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException("environment check failed: " + e.getCause(), e.getCause());
        }
    }

    /**
     * What the blocking run starts on before the answer: the quick commands' findings and a torch like nearly
     * every one (found, built without device-side assertions). The answer corrects it ({@link
     * BlockingPhase#runBesideCheck}).
     */
    public Environment assumed() {
        Environment p = partial;
        return new Environment(
                p.driverVersion(),
                p.driverCudaVersion(),
                p.gpus(),
                p.nvccVersion(),
                null,
                null,
                "assumed",
                null,
                null,
                null,
                false,
                p.computeSanitizerPath(),
                p.computeSanitizerVersion(),
                "pending",
                p.messages());
    }

    /** The answer when the check has given one (null while it runs, when it failed or threw). Never waits. */
    public Environment answered() {
        return whole.isDone() && !whole.isCompletedExceptionally() ? whole.join() : null;
    }

    /** The whole environment, for phases started after the check answered (never waits). */
    public Environment answer() {
        if (!whole.isDone()) {
            throw new IllegalStateException("the environment check has not answered yet");
        }
        return whole.join();
    }

    /**
     * Why phases started beside the check must stop, once it answered: incompatible or failed; null while it
     * runs or when the environment is usable. Never waits.
     */
    public String stopReason() {
        if (!whole.isDone() || whole.isCompletedExceptionally()) {
            return null;
        }
        return usable(whole.join()) ? null : "stopped: the environment check found the environment unusable";
    }

    /**
     * Moves the folder of a run started before the answer out of the way (its files stay as evidence, nothing of
     * it counts): {@code NAME-before-environment-check}.
     */
    public static Path setAside(Path phaseDir) throws IOException {
        return RunDirectory.setAside(phaseDir, SET_ASIDE);
    }

    /** The suffix of a run set aside for the check's answer. */
    public static final String SET_ASIDE = "before-environment-check";

    /** Phases may run in it: the check answered and did not find an incompatibility. */
    public static boolean usable(Environment environment) {
        return environment != null && !"error".equals(environment.compatibility());
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.GeneratedCode;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.TracebackParser;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The blocking phase: {@code CUDA_LAUNCH_BLOCKING=1} (and device-side assertions where this torch has
 * them), so the traceback names the launch that faulted; its failure time is the reference.
 */
final class BlockingPhase {
    private final PhaseContext context;
    private final boolean sampleCard;

    BlockingPhase(PhaseContext context) {
        this(context, false);
    }

    /**
     * @param sampleCard nvidia-smi samples the card's memory beside it ({@code blocking/nvidia-smi.csv}): what the
     *                   sanitizer and blocking runs take together tells whether the regression run fits beside them
     *                   ({@link RegressionPlan})
     */
    BlockingPhase(PhaseContext context, boolean sampleCard) {
        this.context = context;
        this.sampleCard = sampleCard;
    }

    PhaseResult run(String gpu) throws IOException {
        return run(gpu, context.environment(), () -> null);
    }

    /** @param cut polled every second: a reason cuts the run short */
    PhaseResult run(String gpu, Supplier<String> cut) throws IOException {
        return run(gpu, context.environment(), cut);
    }

    /**
     * Started before the environment check answered, on what nearly every torch is (PyPI and conda wheels are
     * built without device-side assertions; {@link EnvironmentCheck#assumed()}). Stopped when the answer says
     * the environment is unusable (the scheduler sets it aside); run again, the first run kept beside it, when
     * the answer differs in what the run's settings depend on.
     *
     * @param cut polled every second: a reason cuts the run short (the scheduler's, once the sanitizer run beside
     *            it ended clean)
     */
    PhaseResult runBesideCheck(String gpu, EnvironmentCheck check, Supplier<String> cut) throws IOException {
        Environment assumed = check.assumed();
        PhaseResult first = run(gpu, assumed, () -> {
            String unusable = check.stopReason();
            if (unusable != null) {
                return unusable;
            }
            Environment answer = check.answered();
            return answer != null && settingsDiffer(assumed, answer)
                    ? "stopped: started before the environment check answered, on settings the answer changed"
                    : cut.get();
        });
        if (PhaseResult.ABORTED.equals(first.status()) || Thread.currentThread().isInterrupted()) {
            return first;
        }
        Environment answer;
        try {
            answer = check.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return first;
        }
        if (!EnvironmentCheck.usable(answer) || !settingsDiffer(assumed, answer)) {
            return first;
        }
        Path ran = context.dir().dir(Phase.BLOCKING.id());
        Path kept = EnvironmentCheck.setAside(ran);
        context.reference().forget(ReferenceTime.BLOCKING);
        context.progress()
                .say("the blocking run started before the environment check answered"
                        + (Boolean.TRUE.equals(answer.torchDsa()) ? " (this torch has device-side assertions)" : "")
                        + ": run again with the answer's settings (the first is kept in " + kept.getFileName()
                        + "; a GPU crash in it is judged all the same)");
        return run(gpu, answer, cut);
    }

    /** Whether this result is a blocking run the scheduler cut short (its traceback is of that stop, not the job's). */
    static boolean wasCut(PhaseResult result) {
        return wasCut(result.status(), result.note());
    }

    /** The same, from a phase's status and note as run.json records them. */
    static boolean wasCut(String status, String note) {
        return PhaseResult.STOPPED_EARLY.equals(status) && note != null && note.startsWith(CUT);
    }

    /** The note of a blocking run cut when the sanitizer run beside it ended clean. */
    static final String CUT = "cut when the sanitizer run beside it ended clean";

    /** What the run's settings depend on: device-side assertions, and whether the probe can go in (torch found). */
    static boolean settingsDiffer(Environment a, Environment b) {
        return Boolean.TRUE.equals(a.torchDsa()) != Boolean.TRUE.equals(b.torchDsa())
                || (a.torchVersion() == null) != (b.torchVersion() == null);
    }

    private PhaseResult run(String gpu, Environment environment, Supplier<String> stop) throws IOException {
        RunSpec spec = context.spec();
        Path phaseDir = Files.createDirectories(context.dir().dir(Phase.BLOCKING.id()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        set.put("CUDA_LAUNCH_BLOCKING", "1");
        if (Boolean.TRUE.equals(environment.torchDsa())) {
            set.put("PYTORCH_USE_CUDA_DSA", "1");
        }
        set.putAll(context.probe().env(Phase.BLOCKING, phaseDir, environment));
        List<String> removed = new ArrayList<>(Phase.DEBUG_VARIABLES);
        removed.removeAll(set.keySet());
        PhaseResult result = context.launcher()
                .launch(PhaseCommand.builder(Phase.BLOCKING)
                        .argv(RunSpec.argv(spec.command()))
                        .set(set)
                        .removed(removed)
                        .gpu(gpu)
                        .directory(phaseDir)
                        .timeoutSeconds(spec.timeoutSeconds(Phase.BLOCKING))
                        .onProgress(elapsed -> context.progress().say("blocking running " + Math.round(elapsed) + " s"))
                        .stopEarly(stop)
                        .sidecar(
                                sampleCard
                                        ? CardMemory.samplerArgv(context.nvidiaSmi(), gpu, spec.samplerIntervalMs())
                                        : List.of())
                        .build());
        context.reference().offer(result.timeToFailure(), ReferenceTime.BLOCKING);
        copyGeneratedCode(phaseDir);
        context.blockingEnd().ended(result);
        return result;
    }

    /**
     * torch.compile's generated code (Inductor wrapper, Triton kernel) lives in a cache on this machine
     * and may be gone later: keep the files the blocking run's output names beside it.
     */
    private void copyGeneratedCode(Path phaseDir) {
        Path stderr = phaseDir.resolve(RunLayout.STDERR);
        if (!Files.isRegularFile(stderr)) {
            return;
        }
        try {
            List<Path> copied = GeneratedCode.copy(new TracebackParser().parse(stderr), phaseDir);
            if (!copied.isEmpty()) {
                context.progress()
                        .say("kept " + copied.size() + " generated file(s) of torch.compile in "
                                + phaseDir.getFileName() + "/" + GeneratedCode.DIR);
            }
        } catch (IOException | InputException e) {
            context.progress().say("cannot keep the generated code: " + e.getMessage());
        }
    }
}

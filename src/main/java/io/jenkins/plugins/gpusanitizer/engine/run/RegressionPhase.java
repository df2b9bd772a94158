package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.ThroughputJson;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The regression phase: no debugging variables, for the multiple of the reference failure time
 * (or its time limit without one), with nvidia-smi sampling GPU memory beside it and the job's
 * throughput read from its output when asked.
 */
final class RegressionPhase {
    private final PhaseContext context;
    private volatile ThroughputJson throughput;

    RegressionPhase(PhaseContext context) {
        this.context = context;
    }

    /** The throughput read from the job's output, or null when not asked or not run. */
    ThroughputJson throughput() {
        return throughput;
    }

    PhaseResult run(String gpu) throws IOException {
        return run(gpu, null);
    }

    /**
     * @param plan on one GPU, where it runs beside or after the sanitizer run and why (its note; beside marks the
     *             result, whose card total and throughput are then not the job's alone), or null
     */
    PhaseResult run(String gpu, RegressionPlan plan) throws IOException {
        return run(gpu, plan, context.environment(), () -> null);
    }

    /**
     * The first phase, started before the environment check answered, on what nearly every torch is ({@link
     * EnvironmentCheck#assumed()}: only whether the probe goes in depends on it, and the probe does nothing in a job
     * without torch); stopped when the answer says the environment is unusable (the scheduler sets it aside).
     */
    PhaseResult runBesideCheck(String gpu, EnvironmentCheck check) throws IOException {
        Environment answer = check.answered();
        return run(gpu, null, answer != null ? answer : check.assumed(), check::stopReason);
    }

    private PhaseResult run(String gpu, RegressionPlan plan, Environment environment, Supplier<String> stop)
            throws IOException {
        RunSpec spec = context.spec();
        Path phaseDir = Files.createDirectories(context.dir().dir(Phase.REGRESSION.id()));
        plan = besideBeforeRestart(phaseDir, plan);
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        if (spec.expandableSegments()) {
            set.put("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True");
        }
        set.putAll(context.probe().env(Phase.REGRESSION, phaseDir, environment));
        List<String> removed = new ArrayList<>(Phase.DEBUG_VARIABLES);
        int timeout = spec.timeoutSeconds(Phase.REGRESSION);
        // without a failure to reproduce, the regression run ends by itself or at its time limit (a pass)
        double stopAt = context.reference().regressionStop(spec, timeout);
        Double target = context.reference().regressionTarget();
        Path nvidiaSmi = context.nvidiaSmi();
        PhaseResult result = context.launcher()
                .launch(PhaseCommand.builder(Phase.REGRESSION)
                        .argv(RunSpec.argv(spec.command()))
                        .set(set)
                        .removed(removed)
                        .gpu(gpu)
                        .directory(phaseDir)
                        .timeoutSeconds(timeout + 1)
                        .stopAtSeconds(stopAt)
                        .onProgress(elapsed -> context.progress()
                                .say("regression running " + Math.round(elapsed) + " s"
                                        + (target == null ? "" : " of " + Math.round(target) + " s target")))
                        .stopEarly(target == null ? lateTarget(phaseDir, timeout, stop) : stop)
                        .sidecar(MemorySampler.argv(
                                context.dir().root(), phaseDir, nvidiaSmi, gpu, spec.samplerIntervalMs()))
                        .build());
        for (String samplerNote :
                new String[] {MemorySampler.diedNote(phaseDir), MemorySampler.appsDiedNote(phaseDir)}) {
            if (samplerNote != null) {
                context.reasons().add(Reason.warning("memory-sampler", samplerNote));
                result = result.withNote(samplerNote);
            }
        }
        Double late = context.reference().regressionTarget();
        if (target == null && late == null && PhaseResult.STOPPED_AT_TARGET.equals(result.status())) {
            result = result.withNote(
                    "no reference failure time: ran for the regression time limit of " + timeout + " s");
        }
        if (plan != null) {
            result = plan.beside() ? result.withNote(plan.why()).withRanBeside(true) : result.withNote(plan.why());
        }
        if (target == null && late != null) {
            result = result.withNote("started before the blocking run failed: its target of "
                    + ProgressLog.seconds(late) + " s (" + spec.regressionMultiple() + "x that failure time) came"
                    + " later");
        }
        context.reference().offer(result.timeToFailure(), ReferenceTime.REGRESSION);
        if (spec.throughputRegex() != null) {
            throughput = Throughput.read(
                    spec.throughputRegex(),
                    spec.throughputBaseline(),
                    spec.throughputTolerance(),
                    List.of(phaseDir.resolve(RunLayout.STDOUT), phaseDir.resolve(RunLayout.STDERR)));
        }
        return result;
    }

    /** Marks a regression run started beside the sanitizer run, for a run resumed after a restart. */
    static final String BESIDE_MARK = "beside-sanitizer.txt";

    /**
     * The plan a regression run was started under: beside the sanitizer run is kept in its folder, so a run resumed
     * after a restart (which plans again, maybe "after") still knows its card was shared.
     */
    private static RegressionPlan besideBeforeRestart(Path phaseDir, RegressionPlan plan) throws IOException {
        Path mark = phaseDir.resolve(BESIDE_MARK);
        if (PhaseProcess.started(phaseDir) && Files.isRegularFile(mark)) {
            return new RegressionPlan(
                    true, Files.readString(mark, StandardCharsets.UTF_8).strip());
        }
        if (plan != null && plan.beside() && !PhaseProcess.started(phaseDir)) {
            Files.writeString(mark, plan.why() + "\n", StandardCharsets.UTF_8);
        }
        return plan;
    }

    /**
     * A regression run started without a target (beside the sanitizer run, before any failure time was known) gets
     * one once the blocking run beside it fails by itself: the multiple of that failure time, as if it had started
     * after it. It then stops there (at once when it already ran longer), so it lasts at least that long and no
     * longer than it would have alone. A blocking run that ran out of memory beside the sanitizer run sets none: the
     * shared card failed it, not the job.
     */
    private Supplier<String> lateTarget(Path phaseDir, int timeout, Supplier<String> stop) {
        RunSpec spec = context.spec();
        boolean[] settled = {false};
        return () -> {
            String why = stop.get();
            if (why != null
                    || settled[0]
                    || !ReferenceTime.BLOCKING.equals(context.reference().source())) {
                return why;
            }
            settled[0] = true;
            if (RunDirectory.outOfMemory(context.dir().dir(Phase.BLOCKING.id()).resolve(RunLayout.STDERR))) {
                return null;
            }
            Double late = context.reference().lateRegressionTarget(spec, timeout);
            if (late != null) {
                try {
                    PhaseProcess.lateTarget(phaseDir, late);
                    context.progress()
                            .say("regression: the blocking run failed after "
                                    + ProgressLog.seconds(context.reference().failureSeconds())
                                    + " s, so it stops at " + ProgressLog.seconds(late) + " s");
                } catch (IOException e) {
                    context.progress()
                            .say("regression: cannot set its late target (" + e.getMessage()
                                    + "): it runs on to the job's end or its time limit");
                }
            }
            return null;
        };
    }
}

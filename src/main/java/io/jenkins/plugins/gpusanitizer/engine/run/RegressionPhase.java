package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The regression phase: no debugging variables, for the multiple of the reference failure time
 * (or its time limit without one), with nvidia-smi sampling GPU memory beside it and the job's
 * throughput read from its output when asked.
 */
final class RegressionPhase {
    private final PhaseContext context;
    private volatile Report.ThroughputJson throughput;

    RegressionPhase(PhaseContext context) {
        this.context = context;
    }

    /** The throughput read from the job's output, or null when not asked or not run. */
    Report.ThroughputJson throughput() {
        return throughput;
    }

    PhaseResult run(String gpu) throws IOException {
        RunSpec spec = context.spec();
        Path phaseDir = Files.createDirectories(context.dir().dir(Phase.REGRESSION.id()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        if (spec.expandableSegments()) {
            set.put("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True");
        }
        set.putAll(context.probe().env(Phase.REGRESSION, phaseDir, context.environment()));
        List<String> removed = new ArrayList<>(Phase.DEBUG_VARIABLES);
        int timeout = spec.timeoutSeconds(Phase.REGRESSION);
        // without a failure to reproduce, the regression run ends by itself or at its time limit (a pass)
        double stopAt = context.reference().regressionStop(spec, timeout);
        Double target = context.reference().regressionTarget();
        Path nvidiaSmi = context.tools()
                .require("nvidia-smi", spec.nvidiaSmi() == null ? null : Path.of(spec.nvidiaSmi()), "--nvidia-smi");
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
        if (target == null && PhaseResult.STOPPED_AT_TARGET.equals(result.status())) {
            result = result.withNote(
                    "no reference failure time: ran for the regression time limit of " + timeout + " s");
        }
        context.reference().offer(result.timeToFailure(), "this run's regression phase");
        if (spec.throughputRegex() != null) {
            throughput = Throughput.read(
                    spec.throughputRegex(),
                    spec.throughputBaseline(),
                    spec.throughputTolerance(),
                    List.of(phaseDir.resolve(RunLayout.STDOUT), phaseDir.resolve(RunLayout.STDERR)));
        }
        return result;
    }
}

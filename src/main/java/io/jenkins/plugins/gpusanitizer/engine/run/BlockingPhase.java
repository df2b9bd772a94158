package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.parse.GeneratedCode;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.TracebackParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The blocking phase: {@code CUDA_LAUNCH_BLOCKING=1} (and device-side assertions where this torch has
 * them), so the traceback names the launch that faulted; its failure time is the reference.
 */
final class BlockingPhase {
    private final PhaseContext context;

    BlockingPhase(PhaseContext context) {
        this.context = context;
    }

    PhaseResult run(String gpu) throws IOException {
        RunSpec spec = context.spec();
        Path phaseDir = Files.createDirectories(context.dir().dir(Phase.BLOCKING.id()));
        Map<String, String> set = new LinkedHashMap<>();
        set.put("CUDA_VISIBLE_DEVICES", gpu);
        set.put("CUDA_LAUNCH_BLOCKING", "1");
        if (Boolean.TRUE.equals(context.environment().torchDsa())) {
            set.put("PYTORCH_USE_CUDA_DSA", "1");
        }
        set.putAll(context.probe().env(Phase.BLOCKING, phaseDir, context.environment()));
        List<String> removed = new ArrayList<>(Phase.DEBUG_VARIABLES);
        removed.removeAll(set.keySet());
        PhaseResult result = context.launcher()
                .launch(new PhaseCommand(
                        Phase.BLOCKING.id(),
                        Phase.BLOCKING,
                        RunSpec.argv(spec.command()),
                        set,
                        removed,
                        gpu,
                        phaseDir,
                        spec.timeoutSeconds(Phase.BLOCKING),
                        null,
                        false,
                        elapsed -> context.progress().say("blocking running " + Math.round(elapsed) + " s"),
                        () -> null,
                        List.of()));
        context.reference().offer(result.timeToFailure(), "this run's blocking phase");
        copyGeneratedCode(phaseDir);
        return result;
    }

    /**
     * torch.compile's generated code (Inductor wrapper, Triton kernel) lives in a cache on this machine
     * and may be gone later: keep the files the blocking run's output names beside it.
     */
    private void copyGeneratedCode(Path phaseDir) {
        Path stderr = phaseDir.resolve(RunDirectory.STDERR);
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

package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * nvidia-smi sampling GPU memory into a CSV beside the regression run: the sidecar the phase's
 * supervisor starts with the job and stops after it (so it runs where the job runs).
 */
final class MemorySampler {
    static final String DIED = "sidecar.died";

    private MemorySampler() {}

    static List<String> argv(Path nvidiaSmi, String gpu, int intervalMs) {
        return List.of(
                nvidiaSmi.toString(),
                "--query-gpu=timestamp,index,memory.used,memory.total,utilization.gpu",
                "--format=csv,nounits",
                "-lms",
                Integer.toString(intervalMs),
                "-i",
                gpu);
    }

    /** A note when the sampler had died before the phase ended (its curve ends early), else null. */
    static String diedNote(Path phaseDir) throws IOException {
        Path died = phaseDir.resolve(DIED);
        if (!Files.isRegularFile(died)) {
            return null;
        }
        String code = Files.readString(died, StandardCharsets.UTF_8).trim();
        return "memory sampler exited early (code " + code + "): the curve is partial";
    }
}

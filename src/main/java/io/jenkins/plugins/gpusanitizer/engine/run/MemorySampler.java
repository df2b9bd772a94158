package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.GpuPids;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * nvidia-smi sampling GPU memory beside the regression run: the sidecar the phase's supervisor starts
 * with the job and stops after it (so it runs where the job runs). {@code memory-sampler.sh} keeps two
 * nvidia-smi processes looping (one query each): the card's total into {@link RunLayout#MEMORY_CSV}
 * and each process's memory into {@link RunLayout#MEMORY_APPS_CSV}, and writes which of the listed
 * pids are the phase's own into {@link RunLayout#GPU_PIDS}.
 */
final class MemorySampler {
    static final String DIED = "sidecar.died";
    static final String SCRIPT = "memory-sampler.sh";

    private MemorySampler() {}

    /** The sidecar: the sampler script (installed in the run's bin/) for this phase. */
    static List<String> argv(Path runRoot, Path phaseDir, Path nvidiaSmi, String gpu, int intervalMs)
            throws IOException {
        List<String> argv = new ArrayList<>();
        argv.add("sh");
        argv.add(install(runRoot).toString());
        argv.add(phaseDir.toString());
        argv.add(nvidiaSmi.toString());
        argv.add(gpu);
        argv.add(Integer.toString(intervalMs));
        return argv;
    }

    /** Copies the sampler script into the run directory (bin/), once per run; returns its path. */
    static Path install(Path runRoot) throws IOException {
        Path bin = Files.createDirectories(runRoot.resolve("bin"));
        Path target = bin.resolve(SCRIPT);
        if (!Files.exists(target)) {
            try (InputStream in =
                    io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.open(MemorySampler.class, SCRIPT)) {
                if (in == null) {
                    throw new IOException("the memory sampler script is missing from the gpu-sanitize jar");
                }
                Files.copy(in, target);
            }
        }
        return target;
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

    /** A note when the per-process sampler had died before the phase ended (gpu-pids.txt says so), else null. */
    static String appsDiedNote(Path phaseDir) {
        Path pids = phaseDir.resolve(RunLayout.GPU_PIDS);
        String code;
        try {
            code = Files.isRegularFile(pids) ? GpuPids.read(pids).appsSamplerExit() : null;
        } catch (InputException e) {
            return null; // unreadable: the analysis says so when it reads it
        }
        if (code == null) {
            return null;
        }
        return "per-process memory sampler (nvidia-smi --query-compute-apps) exited early (code " + code + ", see "
                + RunLayout.MEMORY_APPS_ERR + "): the per-process curve is partial";
    }
}

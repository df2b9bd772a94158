package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts the in-process probe into the run directory ({@code probe/sitecustomize.py} and
 * {@code probe/gpu_sanitize_probe.py}, shipped as resources) and gives a phase the variables that
 * turn it on: {@code PYTHONPATH} with the probe folder first, {@code GPU_SANITIZE_PROBE_OUT} (the
 * phase's {@code probe.jsonl}) and {@code GPU_SANITIZE_PROBE_MODE}. The sanitizer phase gets only its
 * torch.compile part ({@link CompileModeNote}).
 */
final class ProbeInstaller {
    static final String DIR = "probe";
    static final String RESOURCES = "probe/";
    static final List<String> FILES = List.of("sitecustomize.py", "gpu_sanitize_probe.py");
    static final String OUT = "GPU_SANITIZE_PROBE_OUT";
    static final String MODE = "GPU_SANITIZE_PROBE_MODE";

    private final Path root;
    private Path installed;

    ProbeInstaller(Path runRoot) {
        this.root = runRoot;
    }

    /** Writes the probe once; the same folder for every phase. */
    synchronized Path install() throws IOException {
        if (installed == null) {
            Path dir = Files.createDirectories(root.resolve(DIR));
            for (String f : FILES) {
                try (InputStream in = io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.open(
                        ProbeInstaller.class, RESOURCES + f)) {
                    if (in == null) {
                        throw new IOException("the probe resource " + f + " is missing from this build");
                    }
                    Files.copy(in, dir.resolve(f), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            installed = dir;
        }
        return installed;
    }

    /**
     * @param inheritedPythonPath the job's PYTHONPATH (inherited or given with --env), kept after the probe
     */
    Map<String, String> env(Phase phase, Path phaseDir, String inheritedPythonPath) throws IOException {
        Path dir = install();
        Map<String, String> env = new LinkedHashMap<>();
        env.put(
                "PYTHONPATH",
                inheritedPythonPath == null || inheritedPythonPath.isEmpty()
                        ? dir.toString()
                        : dir + java.io.File.pathSeparator + inheritedPythonPath);
        env.put(OUT, phaseDir.resolve(RunLayout.PROBE_JSONL).toString());
        env.put(MODE, phase.id());
        return env;
    }
}

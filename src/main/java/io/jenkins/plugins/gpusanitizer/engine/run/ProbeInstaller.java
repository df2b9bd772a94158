package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Puts the in-process probe into the run directory ({@code probe/sitecustomize.py} and the probe's modules,
 * {@link RunLayout#PROBE_MODULES}, shipped as resources) and gives a phase the variables that
 * turn it on: {@code PYTHONPATH} with the probe folder first, {@code PATH} with its interpreter shims put in front of
 * the phase shell's own ({@link InterpreterShims}: a job that resets PYTHONPATH keeps the probe), {@code GPU_SANITIZE_PROBE_OUT} (the
 * phase's {@code probe.jsonl}) and {@code GPU_SANITIZE_PROBE_MODE}. The sanitizer phase gets only its
 * torch.compile part ({@link CompileModeNote}).
 */
final class ProbeInstaller {
    static final String DIR = "probe";
    static final String RESOURCES = "probe/";
    /** What is copied into {@code probe/}: the loader Python's site module imports, then the probe's modules. */
    static final List<String> FILES = Stream.of(
                    Stream.of("sitecustomize.py"), RunLayout.PROBE_MODULES.stream(), Stream.of(RunLayout.CENSUS_SOURCE))
            .flatMap(s -> s)
            .toList();
    /** Where gpu_sanitize_census.py writes the kernel census (the blocking run's only): census-PID.jsonl, build.log. */
    static final String CENSUS_VARIABLE = "GPU_SANITIZE_CENSUS_DIR";

    static final String OUT = "GPU_SANITIZE_PROBE_OUT";
    static final String MODE = "GPU_SANITIZE_PROBE_MODE";
    /** The root of the run's copy of the working directory: files opened outside it are named (state records). */
    static final String ROOT = "GPU_SANITIZE_PROBE_ROOT";
    /** The original working directory: a file opened there from a copy is named as {@code workspace}. */
    static final String WORKSPACE = "GPU_SANITIZE_PROBE_WORKSPACE";

    private final Path root;
    private Path installed;

    ProbeInstaller(Path runRoot) {
        this.root = runRoot;
    }

    private synchronized Path shims(Path dir, String path) throws IOException {
        return InterpreterShims.install(dir, path);
    }

    /**
     * The probe's variables of {@code set} as a run in a copy of the working directory sees them: PYTHONPATH is the
     * probe's folder in front of the job's value, and the job's value is the one {@code jobEnv} (the relocated one)
     * has.
     */
    static Map<String, String> relocated(Map<String, String> set, Map<String, String> env, Map<String, String> jobEnv) {
        Map<String, String> out = new LinkedHashMap<>(set);
        for (String name : List.of("PYTHONPATH")) {
            String value = set.get(name);
            String inherited = env.get(name);
            String moved = jobEnv.get(name);
            String tail = java.io.File.pathSeparator + inherited;
            if (value != null && inherited != null && moved != null && !inherited.isEmpty() && value.endsWith(tail)) {
                out.put(name, value.substring(0, value.length() - tail.length()) + java.io.File.pathSeparator + moved);
            }
        }
        return out;
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
        return env(phase, phaseDir, inheritedPythonPath, null);
    }

    /**
     * @param inheritedPythonPath the job's PYTHONPATH (inherited or given with --env), kept after the probe
     * @param inheritedPath       the job's PATH, where the interpreters the shims stand for are looked up (the shims
     *                            go in front of the phase's own PATH when it starts); null: no shims
     */
    Map<String, String> env(Phase phase, Path phaseDir, String inheritedPythonPath, String inheritedPath)
            throws IOException {
        Path dir = install();
        Map<String, String> env = new LinkedHashMap<>();
        env.put(
                "PYTHONPATH",
                inheritedPythonPath == null || inheritedPythonPath.isEmpty()
                        ? dir.toString()
                        : dir + java.io.File.pathSeparator + inheritedPythonPath);
        Path shims = inheritedPath == null ? null : shims(dir, inheritedPath);
        if (shims != null) {
            env.put(PhaseScript.PREPEND + "PATH", shims.toString());
        }
        env.put(OUT, phaseDir.resolve(RunLayout.PROBE_JSONL).toString());
        env.put(MODE, phase.id());
        if (phase == Phase.BLOCKING) {
            // the plain run's kernel census (issue #49): the blocking run launches what the job launches, unchecked
            env.put(CENSUS_VARIABLE, phaseDir.resolve(RunLayout.CENSUS_DIR).toString());
        }
        return env;
    }
}

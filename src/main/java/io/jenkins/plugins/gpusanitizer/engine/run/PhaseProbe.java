package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Whether a phase gets the in-process probe (docs/probe.md), and its variables: none with
 * {@code --no-probe}, when the environment probe found no torch, or when it cannot be written (said
 * once in the report); the regression phase's memory probe only with {@code --probe-memory}.
 */
final class PhaseProbe {
    private final RunSpec spec;
    private final Map<String, String> baseEnv;
    private final ProbeInstaller installer;
    private final RunReasons reasons;

    PhaseProbe(RunSpec spec, Map<String, String> baseEnv, ProbeInstaller installer, RunReasons reasons) {
        this.spec = spec;
        this.baseEnv = baseEnv;
        this.installer = installer;
        this.reasons = reasons;
    }

    /**
     * The sanitizer phase's probe: only torch.compile's mode (docs/probe.md). Asked before the environment
     * check may have answered (the run starts beside it), so without its torch verdict: the probe does
     * nothing in a job that never imports torch.
     */
    Map<String, String> sanitizerEnv(Path phaseDir) {
        if (!spec.probe()) {
            return Map.of();
        }
        try {
            Map<String, String> env = new LinkedHashMap<>(baseEnv);
            env.putAll(spec.extraEnv());
            return installer.env(Phase.SANITIZER, phaseDir, env.get("PYTHONPATH"), env.get("PATH"));
        } catch (IOException | RuntimeException e) {
            reasons.addOnce(
                    Reason.info("probe", "in-process probe not installed for the sanitizer: " + e.getMessage()));
            return Map.of();
        }
    }

    Map<String, String> env(Phase phase, Path phaseDir, Environment environment) {
        if (phase == Phase.REGRESSION && spec.probe() && !spec.probeMemory()) {
            reasons.addOnce(Reason.info(
                    "probe",
                    spec.probeMemoryAsked() == null
                            ? "no allocation sites in the regression phase: its throughput is judged against a baseline,"
                                    + " which the probe's cost (about 10 %) could fail (--probe-memory to have them all the same)"
                            : "no allocation sites in the regression phase (--no-probe-memory)"));
            return Map.of();
        }
        String off = !spec.probe()
                ? "off (--no-probe)"
                : environment.torchVersion() == null ? "off: no torch in the job's Python" : null;
        try {
            if (off == null) {
                Map<String, String> env = new LinkedHashMap<>(baseEnv);
                env.putAll(spec.extraEnv());
                return installer.env(phase, phaseDir, env.get("PYTHONPATH"), env.get("PATH"));
            }
        } catch (IOException | RuntimeException e) {
            off = "not installed: " + e.getMessage();
        }
        reasons.addOnce(Reason.info("probe", "in-process probe " + off));
        return Map.of();
    }
}

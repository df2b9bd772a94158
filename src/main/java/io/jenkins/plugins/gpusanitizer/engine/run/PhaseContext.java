package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.ToolLocator;
import java.nio.file.Path;
import java.util.Map;

/**
 * What the phase classes share for one run: the spec, the inherited environment, the run directory,
 * the launcher, the progress log, and the state whose owners they update (reasons, reference time, the blocking run's
 * end).
 */
record PhaseContext(
        RunSpec spec,
        Map<String, String> baseEnv,
        RunDirectory dir,
        PhaseLauncher launcher,
        ProgressLog progress,
        RunReasons reasons,
        ReferenceTime reference,
        EnvironmentCheck environmentCheck,
        PhaseProbe probe,
        ToolLocator tools,
        BlockingEnd blockingEnd) {
    /**
     * The whole environment, once the check answered. The phases started before its answer take what they need
     * otherwise: the sanitizer run the tool's path ({@link EnvironmentCheck#partial()}), a blocking or regression run
     * the usual torch ({@link EnvironmentCheck#assumed()}).
     */
    Environment environment() {
        return environmentCheck.answer();
    }

    /**
     * The nvidia-smi of the memory samplers: the one the environment check ran, so that a phase started before its
     * Python answered never waits for a lookup (where the job runs in a container, a lookup is a command in turn).
     */
    Path nvidiaSmi() {
        String known = environmentCheck.nvidiaSmi();
        if (known != null) {
            return Path.of(known);
        }
        return tools.require("nvidia-smi", spec.nvidiaSmi() == null ? null : Path.of(spec.nvidiaSmi()), "--nvidia-smi");
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.run.environment.Environment;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.EnvironmentCheck;
import io.jenkins.plugins.gpusanitizer.engine.run.environment.ToolLocator;
import java.util.Map;

/**
 * What the phase classes share for one run: the spec, the inherited environment, the run directory,
 * the launcher, the progress log, and the state whose owners they update (reasons, reference time).
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
        ToolLocator tools) {
    /**
     * The whole environment. Only the sanitizer run may start before the check answered (it needs only the tool's
     * path, {@link EnvironmentCheck#partial()}); the scheduler starts the others after it.
     */
    Environment environment() {
        return environmentCheck.answer();
    }
}

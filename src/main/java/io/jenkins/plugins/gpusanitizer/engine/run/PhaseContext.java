package io.jenkins.plugins.gpusanitizer.engine.run;

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
        Environment environment,
        PhaseProbe probe,
        ToolLocator tools) {}

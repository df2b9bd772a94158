/**
 * Everything that thinks, and the runner that drives it. Plain Java, no Jenkins. The stages point one way,
 * model ← parse ← findings, probe ← diagnosis ← gate ← analysis ← report ← run (drawn in
 * src/test/resources/architecture/design.puml, held by PackageArchitectureTest): {@code run} is the part
 * with side effects (the job's phases as processes, the environment check, GPU locks, the run directory)
 * and has each run analysed; nothing below it uses it (a finished run is read through
 * {@code model.RunLayout}).
 */
package io.jenkins.plugins.gpusanitizer.engine;

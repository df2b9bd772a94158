/**
 * The runner: a {@link io.jenkins.plugins.gpusanitizer.engine.run.RunSpec} run as phases (sanitizer,
 * blocking, regression) by the {@link io.jenkins.plugins.gpusanitizer.engine.run.Runner} and its scheduler,
 * the run directory and its journal, the reasons a phase gives the verdict, the in-process probe's
 * installation. Its parts below it: {@code process} (a phase's process tree under its supervisor),
 * {@code environment} (what the GPU, driver, torch and tools are), {@code lock} (who holds a GPU, which
 * runner drives a run directory).
 */
package io.jenkins.plugins.gpusanitizer.engine.run;

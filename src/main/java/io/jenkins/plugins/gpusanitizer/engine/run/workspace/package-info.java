/**
 * Each run of the job in a workspace of its own: a copy of the working directory as it was before the gate started
 * ({@link io.jenkins.plugins.gpusanitizer.engine.run.workspace.RunWorkspaces}), so that no run reads what another
 * wrote (a checkpoint it would resume from, a model it would load, a cache half written), and what the plain run
 * left written back into the working directory the build goes on with.
 */
package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

/**
 * Who holds what: the GPU lock files shared by every run on the machine, and the lease that says which
 * runner drives a run directory.
 */
package io.jenkins.plugins.gpusanitizer.engine.run.lock;

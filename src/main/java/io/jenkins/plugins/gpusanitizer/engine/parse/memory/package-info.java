/**
 * nvidia-smi's memory samples taken beside the regression phase.
 */
package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

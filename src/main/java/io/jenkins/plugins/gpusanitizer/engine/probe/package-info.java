/**
 * The in-process probe's output ({@code probe.jsonl} of the blocking and regression phases, written by
 * {@code engine/run/probe/gpu_sanitize_probe.py} and its parts beside it): parsed tolerantly and reduced to evidence,
 * the failing operator's arguments and where live GPU memory was allocated. Never part of the verdict.
 */
package io.jenkins.plugins.gpusanitizer.engine.probe;

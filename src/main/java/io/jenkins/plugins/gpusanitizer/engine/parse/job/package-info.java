/**
 * The job's own output: Python and torchrun tracebacks, CUDA error messages, device-side asserts,
 * out-of-memory messages, frames in torch.compile's generated code, and torch's CUDA initialisation warning.
 */
package io.jenkins.plugins.gpusanitizer.engine.parse.job;

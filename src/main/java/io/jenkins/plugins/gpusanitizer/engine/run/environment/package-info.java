/**
 * What the run stands on: nvidia-smi, nvcc, torch and compute-sanitizer found and asked (short
 * commands), the compatibility verdict, and the check that runs beside the first phases.
 */
package io.jenkins.plugins.gpusanitizer.engine.run.environment;

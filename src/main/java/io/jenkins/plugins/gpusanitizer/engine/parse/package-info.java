/**
 * Reading what the tools and the job wrote into records, each format in its own package: {@code text}
 * (compute-sanitizer's log), {@code xml} (its --xml --save file), {@code job} (the job's output: Python and
 * torchrun tracebacks, CUDA errors, device-side asserts, out of memory), {@code memory} (nvidia-smi
 * samples). Here what they share: the bounded line reader and input files, frame parsing, the
 * sanitizer parsers' result and the one-line {@link io.jenkins.plugins.gpusanitizer.engine.parse.InputException}.
 */
package io.jenkins.plugins.gpusanitizer.engine.parse;

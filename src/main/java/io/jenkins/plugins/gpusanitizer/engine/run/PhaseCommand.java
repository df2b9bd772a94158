package io.jenkins.plugins.gpusanitizer.engine.run;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.DoubleConsumer;
import java.util.function.Supplier;

/**
 * One phase's process as a phase class plans it, before the launcher starts it.
 *
 * @param name            the phase's name and folder ({@code sanitizer-memcheck}, {@code blocking}, ...)
 * @param phase           the phase
 * @param argv            the command
 * @param set             variables the phase sets
 * @param removed         variables the phase removes from the inherited environment
 * @param gpu             CUDA_VISIBLE_DEVICES
 * @param directory       the phase's folder in the run directory
 * @param timeoutSeconds  killed after this long (timed-out)
 * @param stopAtSeconds   stopped cleanly after this long (stopped-at-target), or null
 * @param toolWrapsTarget compute-sanitizer wraps the job: the job is stopped first, the tool gets its write grace
 * @param onProgress      called with the elapsed seconds at each progress interval
 * @param stopEarly       polled every second: a reason ends the phase as stopped-early
 * @param sidecar         a command run beside the phase and stopped after it (the memory sampler), or empty
 */
record PhaseCommand(
        String name,
        Phase phase,
        List<String> argv,
        Map<String, String> set,
        List<String> removed,
        String gpu,
        Path directory,
        double timeoutSeconds,
        Double stopAtSeconds,
        boolean toolWrapsTarget,
        DoubleConsumer onProgress,
        Supplier<String> stopEarly,
        List<String> sidecar) {

    PhaseCommand {
        sidecar = List.copyOf(sidecar);
        argv = List.copyOf(argv);
        set = Collections.unmodifiableMap(new LinkedHashMap<>(set));
        removed = List.copyOf(removed);
    }
}

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

    /**
     * A phase's process planned option by option; the command, the GPU, the folder and the timeout are required.
     * Public members (of a package-private record): the phase classes may come to live in a package of their own.
     */
    public static Builder builder(Phase phase) {
        return new Builder(phase);
    }

    /** Builds a {@link PhaseCommand}: by default named after its phase, nothing set or removed, no sidecar. */
    public static final class Builder {
        private final Phase phase;
        private String name;
        private List<String> argv;
        private Map<String, String> set = Map.of();
        private List<String> removed = List.of();
        private String gpu;
        private Path directory;
        private Double timeoutSeconds;
        private Double stopAtSeconds;
        private boolean toolWrapsTarget;
        private DoubleConsumer onProgress = elapsed -> {};
        private Supplier<String> stopEarly = () -> null;
        private List<String> sidecar = List.of();

        private Builder(Phase phase) {
            this.phase = phase;
            this.name = phase.id();
        }

        /** The phase's name and folder when not the phase's own ({@code sanitizer-memcheck}). */
        public Builder name(String value) {
            name = value;
            return this;
        }

        public Builder argv(List<String> value) {
            argv = value;
            return this;
        }

        public Builder set(Map<String, String> value) {
            set = value;
            return this;
        }

        public Builder removed(List<String> value) {
            removed = value;
            return this;
        }

        public Builder gpu(String value) {
            gpu = value;
            return this;
        }

        public Builder directory(Path value) {
            directory = value;
            return this;
        }

        public Builder timeoutSeconds(double value) {
            timeoutSeconds = value;
            return this;
        }

        public Builder stopAtSeconds(Double value) {
            stopAtSeconds = value;
            return this;
        }

        /** compute-sanitizer wraps the job: the job is stopped first, the tool gets its write grace. */
        public Builder toolWrapsTarget() {
            toolWrapsTarget = true;
            return this;
        }

        public Builder onProgress(DoubleConsumer value) {
            onProgress = value;
            return this;
        }

        public Builder stopEarly(Supplier<String> value) {
            stopEarly = value;
            return this;
        }

        public Builder sidecar(List<String> value) {
            sidecar = value;
            return this;
        }

        /** @throws IllegalStateException without a command, a GPU, a folder or a timeout */
        public PhaseCommand build() {
            if (argv == null || argv.isEmpty() || gpu == null || directory == null || timeoutSeconds == null) {
                throw new IllegalStateException(
                        name + ": a phase's process needs its command, GPU, folder and timeout");
            }
            return new PhaseCommand(
                    name,
                    phase,
                    argv,
                    set,
                    removed,
                    gpu,
                    directory,
                    timeoutSeconds,
                    stopAtSeconds,
                    toolWrapsTarget,
                    onProgress,
                    stopEarly,
                    sidecar);
        }
    }
}

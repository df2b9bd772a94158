package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.List;
import java.util.Map;

/**
 * How one phase ended.
 *
 * @param name            {@code sanitizer-memcheck}, {@code blocking}, {@code regression}
 * @param phase           the phase
 * @param command         the argv run
 * @param env             the variables the phase set or removed (never the inherited environment)
 * @param gpu             CUDA_VISIBLE_DEVICES of the phase
 * @param status          passed, failed, timed-out, stopped-at-target, aborted, not-started
 * @param exitCode        the exit code, or null when it never started
 * @param signal          the signal that ended it (from an exit code above 128), or null
 * @param wallSeconds     how long it ran
 * @param timeToFailure   seconds until it exited with an error by itself, or null
 * @param directory       its folder in the run directory (relative)
 * @param files           its output files (relative to the run directory)
 * @param note            what the runner noticed (survivors killed, XML missing, ...), or null
 * @param ranBeside       whether another phase ran on the same card at the same time (its memory curve and speed
 *                        are not the job's alone); the scheduler sets it
 * @param killedPids      the processes of the phase killed after its main process ended (the supervisor's sweep)
 */
public record PhaseResult(
        String name,
        Phase phase,
        List<String> command,
        Map<String, String> env,
        String gpu,
        String status,
        Integer exitCode,
        Integer signal,
        double wallSeconds,
        Double timeToFailure,
        String directory,
        List<String> files,
        String note,
        boolean ranBeside,
        List<Long> killedPids) {

    public static final String PASSED = "passed";
    public static final String FAILED = "failed";
    public static final String TIMED_OUT = "timed-out";
    public static final String STOPPED_AT_TARGET = "stopped-at-target";
    /** The sanitizer phase ended once enough distinct defects were seen (--stop-after-defects). */
    public static final String STOPPED_EARLY = "stopped-early";

    public static final String ABORTED = "aborted";
    public static final String NOT_STARTED = "not-started";

    /** A phase that had its card to itself. */
    public PhaseResult(
            String name,
            Phase phase,
            List<String> command,
            Map<String, String> env,
            String gpu,
            String status,
            Integer exitCode,
            Integer signal,
            double wallSeconds,
            Double timeToFailure,
            String directory,
            List<String> files,
            String note) {
        this(
                name,
                phase,
                command,
                env,
                gpu,
                status,
                exitCode,
                signal,
                wallSeconds,
                timeToFailure,
                directory,
                files,
                note,
                false,
                List.of());
    }

    public PhaseResult {
        killedPids = killedPids == null ? List.of() : List.copyOf(killedPids);
    }

    /** The same result, marked as run beside another phase on its card (or not). */
    public PhaseResult withRanBeside(boolean beside) {
        return copy(note, beside);
    }

    /** The same result with a note added. */
    public PhaseResult withNote(String more) {
        return copy(note == null ? more : note + "; " + more, ranBeside);
    }

    private PhaseResult copy(String newNote, boolean beside) {
        return new PhaseResult(
                name,
                phase,
                command,
                env,
                gpu,
                status,
                exitCode,
                signal,
                wallSeconds,
                timeToFailure,
                directory,
                files,
                newNote,
                beside,
                killedPids);
    }
}

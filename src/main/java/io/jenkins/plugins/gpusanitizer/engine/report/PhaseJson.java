package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * One phase as run.
 *
 * @param ranBeside another phase ran on the same card at the same time (false in records written before it
 *     was kept): the regression run's memory is then judged on its own processes' figures only
 * @param killedPids the processes of the phase its supervisor killed after the main process ended (null in records
 *     written before it was kept: the note then lists them)
 */
public record PhaseJson(
        String name,
        String tool,
        List<String> command,
        java.util.Map<String, String> environment,
        String gpu,
        String status,
        Integer exitCode,
        Integer signal,
        double wallSeconds,
        Double timeToFailureSeconds,
        boolean timedOut,
        boolean stoppedAtTarget,
        List<String> files,
        String note,
        boolean ranBeside,
        List<Long> killedPids) {
    public PhaseJson(
            String name,
            String tool,
            List<String> command,
            java.util.Map<String, String> environment,
            String gpu,
            String status,
            Integer exitCode,
            Integer signal,
            double wallSeconds,
            Double timeToFailureSeconds,
            boolean timedOut,
            boolean stoppedAtTarget,
            List<String> files,
            String note,
            boolean ranBeside) {
        this(
                name,
                tool,
                command,
                environment,
                gpu,
                status,
                exitCode,
                signal,
                wallSeconds,
                timeToFailureSeconds,
                timedOut,
                stoppedAtTarget,
                files,
                note,
                ranBeside,
                null);
    }

    /** A phase that had its card to itself. */
    public PhaseJson(
            String name,
            String tool,
            List<String> command,
            java.util.Map<String, String> environment,
            String gpu,
            String status,
            Integer exitCode,
            Integer signal,
            double wallSeconds,
            Double timeToFailureSeconds,
            boolean timedOut,
            boolean stoppedAtTarget,
            List<String> files,
            String note) {
        this(
                name,
                tool,
                command,
                environment,
                gpu,
                status,
                exitCode,
                signal,
                wallSeconds,
                timeToFailureSeconds,
                timedOut,
                stoppedAtTarget,
                files,
                note,
                false);
    }
}

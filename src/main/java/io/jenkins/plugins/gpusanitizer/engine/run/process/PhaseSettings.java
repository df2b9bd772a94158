package io.jenkins.plugins.gpusanitizer.engine.run.process;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The supervisor's limits for one phase (supervisor.conf).
 *
 * @param timeoutSeconds        killed after this long (timed-out)
 * @param stopAtSeconds         stopped cleanly after this long (stopped-at-target), or null
 * @param toolWrapsTarget       compute-sanitizer wraps the job: the job is stopped first
 * @param killGraceSeconds      between SIGTERM and SIGKILL
 * @param toolWriteGraceSeconds for compute-sanitizer to write its XML and summary after the job's end
 * @param cookie                the variable value that marks every process of the phase
 * @param sidecar               whether a sidecar.sh runs beside the phase (the memory sampler)
 * @param leftoverGraceSeconds  how long processes of the phase may run on after its main process ended by itself
 *                              before they are taken for the job's work going on unchecked (0: swept at once)
 */
public record PhaseSettings(
        double timeoutSeconds,
        Double stopAtSeconds,
        boolean toolWrapsTarget,
        int killGraceSeconds,
        int toolWriteGraceSeconds,
        String cookie,
        boolean sidecar,
        int leftoverGraceSeconds) {

    /** The longest wait for processes that outlive the main process: as long as it ran, up to this. */
    static final int LEFTOVER_MAX_SECONDS = 30;

    /** A short command's settings: its leftovers are swept at once. */
    public PhaseSettings(
            double timeoutSeconds,
            Double stopAtSeconds,
            boolean toolWrapsTarget,
            int killGraceSeconds,
            int toolWriteGraceSeconds,
            String cookie,
            boolean sidecar) {
        this(
                timeoutSeconds,
                stopAtSeconds,
                toolWrapsTarget,
                killGraceSeconds,
                toolWriteGraceSeconds,
                cookie,
                sidecar,
                0);
    }

    /** How long the supervisor may wait for leftovers after the main process's end. */
    int leftoverMaxSeconds() {
        return leftoverGraceSeconds <= 0 ? 0 : Math.max(leftoverGraceSeconds, LEFTOVER_MAX_SECONDS);
    }

    Map<String, String> conf(PhaseProcess.Owner owner) {
        Map<String, String> conf = new LinkedHashMap<>();
        conf.put("COOKIE", cookie);
        conf.put("TIMEOUT_CS", Long.toString(centiseconds(timeoutSeconds)));
        conf.put("STOP_AT_CS", stopAtSeconds == null ? "" : Long.toString(centiseconds(stopAtSeconds)));
        conf.put("TOOL_WRAPS", toolWrapsTarget ? "1" : "0");
        conf.put("KILL_GRACE_CS", Long.toString(killGraceSeconds * 100L));
        conf.put("WRITE_GRACE_CS", Long.toString(toolWriteGraceSeconds * 100L));
        conf.put("OWNER_PID", owner.pid());
        conf.put("OWNER_START", owner.startTime());
        conf.put("SIDECAR", sidecar ? "1" : "");
        conf.put("LEFTOVER_GRACE_CS", Long.toString(Math.max(0, leftoverGraceSeconds) * 100L));
        conf.put("LEFTOVER_MAX_CS", Long.toString(leftoverMaxSeconds() * 100L));
        // every phase's supervisor makes itself a child subreaper (through the system's perl or python3), so that a
        // daemon of the phase is found, and its sweep reads the phase's descendants alone: a look at every process
        // costs more, on a machine of a few hundred processes about half a short command's supervisor (issue #27)
        conf.put("SUBREAPER", "1");
        return conf;
    }

    private static long centiseconds(double seconds) {
        return Math.round(Math.min(seconds, 1e9) * 100);
    }
}

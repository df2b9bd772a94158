package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameParser;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The launcher's own report on its workers: torchrun's {@code ChildFailedError} with its failure
 * table, {@code mp.spawn}'s {@code ProcessRaisedException} / {@code ProcessExitedException} and its
 * "-- Process N terminated" line. It is context, not the fault: the rank it names and the worker
 * tracebacks in its table are used; its own frames are the launcher's, so only its user frame (the
 * call that launched the workers) is kept.
 */
final class LauncherReport {
    private static final Pattern LAUNCHER_EXCEPTION =
            Pattern.compile("(?:^|\\.)(ChildFailedError|ProcessRaisedException|ProcessExitedException)$");
    private static final Pattern SPAWN_EXITED = Pattern.compile("process (\\d+) terminated with (.+)$");

    private final JobOutput job;
    /** The worker tracebacks torchrun's failure table quotes, by rank. */
    final Map<Integer, ProcessOutput> tableTracebacks = new LinkedHashMap<>();

    /** The launcher's exception: its type and message. */
    String type;

    String message;
    /** The rank the launcher names as the first failure. */
    Integer root;
    /** How the root rank ended: {@code exit code 1}, {@code Signal 6 (SIGABRT) received by PID 12}. */
    String detail;

    private String kind;
    private SourceLocation userFrame;
    /** Reading torchrun's failure table. */
    private TorchrunFailureTable table;

    LauncherReport(JobOutput job) {
        this.job = job;
    }

    static boolean isLauncherException(String type) {
        return type != null && LAUNCHER_EXCEPTION.matcher(type).find();
    }

    /** A traceback ended in a launcher's exception. */
    void exception(String type, String message, List<SourceLocation> frames) {
        this.type = type;
        this.message = message;
        kind = type.endsWith("ChildFailedError") ? "torchrun" : "mp.spawn";
        int u = FrameOrigin.userFrameIndex(frames);
        userFrame = u < 0 ? null : frames.get(u);
        Matcher ex = SPAWN_EXITED.matcher(message == null ? "" : message);
        if (ex.find()) {
            root = FrameParser.parseInt(ex.group(1));
            detail = ex.group(2).trim();
        }
        if (type.endsWith("ChildFailedError")) {
            table = new TorchrunFailureTable(this, job);
        }
    }

    /** mp.spawn's "-- Process N terminated with the following error:": rank N failed first unless told otherwise. */
    void spawnProcess(int rank) {
        if (root == null) {
            root = rank;
        }
    }

    /** @return whether the line belonged to torchrun's failure table */
    boolean tableLine(String line) {
        if (table == null) {
            return false;
        }
        boolean own = table.line(line);
        if (table.ended()) {
            table = null;
        }
        return own;
    }

    /** @return null when no launcher reported */
    CudaFailure.Launcher launcher() {
        return type == null && root == null
                ? null
                : new CudaFailure.Launcher(kind == null ? "mp.spawn" : kind, type, root, detail, userFrame);
    }
}

package io.jenkins.plugins.gpusanitizer.steps;

import hudson.Launcher;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.run.ProcessStarter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Starts the run's processes through the step context's {@link Launcher}, decorators included: inside
 * {@code container('pytorch')} or {@code docker.image(...).inside} they run in the container, where the
 * job's torch, CUDA and compute-sanitizer are, exactly where an {@code sh} step at that point would run.
 * It lives on the controller (the launcher and its decorators do) and is exported to the agent's
 * runner over the channel. Each start is a short {@code sh -c} that leaves the phase's supervisor
 * running detached ({@code nohup}, as durable-task starts {@code sh} steps), so a controller restart or
 * an agent reconnect does not end it; the runner follows it through files in the run directory, which
 * the container shares with the agent because it lies in the workspace.
 */
final class LauncherStarter implements ProcessStarter {
    /** $0: the supervisor script, $1: its folder; returns at once, the supervisor keeps running. */
    static final String DETACH = "nohup sh \"$0\" \"$1\" > \"$1/supervisor.log\" 2>&1 < /dev/null &";

    private final Launcher launcher;
    private final TaskListener listener;

    LauncherStarter(Launcher launcher, TaskListener listener) {
        this.launcher = launcher;
        this.listener = listener;
    }

    @Override
    public void start(String script, String directory, Map<String, String> env, String workDir)
            throws IOException, InterruptedException {
        if (!launcher.isUnix()) {
            throw new IOException("gpuSanitize runs on Unix agents only (the phases are POSIX sh processes)");
        }
        Launcher.ProcStarter starter = launcher.launch()
                .cmds(command(script, directory))
                .envs(new LinkedHashMap<>(env))
                .quiet(true)
                .stdout(listener);
        if (workDir != null) {
            starter.pwd(workDir);
        }
        int exit = starter.join();
        if (exit != 0) {
            throw new IOException("the build's launcher could not start sh " + script + " (exit " + exit
                    + "; is sh in the container?)");
        }
    }

    static List<String> command(String script, String directory) {
        List<String> command = new ArrayList<>(List.of("sh", "-c", DETACH));
        command.addAll(ProcessStarter.command(script, directory).subList(1, 3));
        return command;
    }

    @Override
    public String describe() {
        return "through the build's launcher (" + launcher.getClass().getSimpleName() + ")";
    }
}

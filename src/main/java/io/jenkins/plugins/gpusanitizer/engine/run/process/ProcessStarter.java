package io.jenkins.plugins.gpusanitizer.engine.run.process;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * Starts the run's processes where the job runs: on this machine for the CLI, through the build's
 * launcher (and so inside its container) for the Jenkins step. Every process of a run — the
 * environment probe and each phase's supervisor — goes through it; what they do is read back from
 * files in the run directory, so the runner never needs to see the processes themselves.
 */
public interface ProcessStarter {
    /**
     * Starts {@code sh SCRIPT DIRECTORY} in the background and returns once it is started; its own
     * output goes to {@code DIRECTORY/supervisor.log}.
     *
     * @param script    the supervisor script in the run directory
     * @param directory the folder it works in (settings in, results out)
     * @param env       the complete environment the script starts with
     * @param workDir   the working directory, or null for the starter's own
     * @throws IOException when it could not be started (the message says why, in one line)
     */
    void start(String script, String directory, Map<String, String> env, String workDir)
            throws IOException, InterruptedException;

    /**
     * Whether the processes it starts see this JVM's file system (then tools are looked up here, not
     * with a command where the job runs). False for a launcher that may run them in a container.
     */
    default boolean sharesFileSystem() {
        return false;
    }

    /** Ends whatever this starter started that still runs (a supervisor that does not answer). */
    default void killAll() {}

    /** A one-line description for the log ("local", "the build's launcher"). */
    String describe();

    /** The command a starter runs for {@link #start}. */
    static List<String> command(String script, String directory) {
        return List.of("sh", script, directory);
    }
}

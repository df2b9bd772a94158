package io.jenkins.plugins.gpusanitizer.steps;

import java.nio.file.Path;

/**
 * The hostile job of {@code GpuSanitizeStepITest.plantedLinksNeverReachTheBuildFolderAndNothingSecretStaysOnTheAgent},
 * replayed without a controller by {@link PlantedLinksTest}: one command, so that the two cannot drift apart. It plants
 * symbolic links where a job reaches today and echoes two secrets, then trains.
 *
 * <p>Since each run works in its own copy of the working directory (issue #40), {@code $WORKSPACE} names
 * {@code RUN_DIR/workspaces/RUN}: the run directory ({@code WORKSPACE@tmp/gpu-sanitize/BUILD-ID}) is the copy's
 * grandparent, and the job also learns it by absolute path from {@code GPU_SANITIZE_PROBE_OUT} (the in-process probe's
 * file, {@code RUN_DIR/PHASE/probe.jsonl}). Every step is joined with {@code &&}: a link that cannot be made fails the
 * job (and the build), rather than leaving a property that holds only because nothing was planted (issue #46: the
 * links were planted at {@code $WORKSPACE@tmp}, which no longer exists, and nobody noticed).
 */
final class HostileJob {
    /** In the run directory, reached through the copy's parents: four levels up is the Jenkins home on the built-in node. */
    static final String RELATIVE = "rel";

    static final String RELATIVE_TARGET = "../../../../secrets/master.key";

    /** In the sanitizer phase's folder, reached by the absolute path the probe's variable gives. */
    static final String ABSOLUTE = "sanitizer-memcheck/abs";

    /** In the run directory by its absolute path: a link to a folder. */
    static final String FOLDER = "folder";

    /** In the copies' folder ({@code RUN_DIR/workspaces}), the copy's parent. */
    static final String BESIDE_THE_COPIES = "workspaces/beside";

    private HostileJob() {}

    /**
     * The job's command: a shell line for {@code gpuSanitize command: '...'} (no single quote in it, so that it fits the
     * Pipeline's single-quoted string).
     *
     * @param masterKey the controller's {@code secrets/master.key} (its path may hold spaces: it is quoted)
     * @param folder    a folder outside the run directory
     */
    static String command(Path masterKey, Path folder) {
        return "test -n \"$GPU_SANITIZE_PROBE_OUT\""
                + " && P=$(dirname \"$GPU_SANITIZE_PROBE_OUT\") && R=$(dirname \"$P\")"
                + " && test \"$R\" -ef \"$WORKSPACE/../..\""
                + " && ln -s " + RELATIVE_TARGET + " \"$WORKSPACE/../../" + RELATIVE + "\""
                + " && ln -s " + quoted(masterKey) + " \"$P/abs\""
                + " && ln -s " + quoted(folder) + " \"$R/" + FOLDER + "\""
                + " && ln -s " + quoted(masterKey) + " \"$WORKSPACE/../beside\""
                + " && echo pulling with $HF_PULL --auth $AUTH"
                + " && python3 train.py";
    }

    /** A path in double quotes, refused where the shell or the Pipeline's single-quoted string would read it. */
    private static String quoted(Path path) {
        String text = path.toString();
        if (text.matches(".*[\"'$`\\\\].*")) {
            throw new IllegalArgumentException(text + ": a quote, $, ` or \\ in the path would change the command");
        }
        return "\"" + text + "\"";
    }
}

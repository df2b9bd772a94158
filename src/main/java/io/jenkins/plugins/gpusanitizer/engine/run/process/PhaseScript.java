package io.jenkins.plugins.gpusanitizer.engine.run.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Writes what the supervisor ({@code supervise.sh}) runs and how: {@code phase.sh} (the working
 * directory, the variables the phase sets and removes, then {@code exec} of the command) and
 * {@code supervisor.conf} (limits, kill graces, cookie, owner). Every value is single-quoted, so
 * nothing in a command or a path is interpreted by the shell.
 */
public final class PhaseScript {
    public static final String SUPERVISOR = "supervise.sh";
    public static final String PHASE_SCRIPT = "phase.sh";
    public static final String CONF = "supervisor.conf";
    /**
     * A name in the phase's variables that starts with this is put in front of the variable's value as the phase's
     * shell has it ({@code +PATH=/run/probe/bin}: {@code export PATH='/run/probe/bin'"${PATH:+:$PATH}"}), so that a
     * launcher's own PATH (a container's) is kept behind it.
     */
    public static final String PREPEND = "+";

    static final String SIDECAR = "sidecar.sh";

    private PhaseScript() {}

    /** Copies the supervisor into the run directory (bin/), once per run; returns its path. */
    public static Path installSupervisor(Path runRoot) throws IOException {
        Path bin = Files.createDirectories(runRoot.resolve("bin"));
        Path target = bin.resolve(SUPERVISOR);
        if (!Files.exists(target)) {
            try (InputStream in =
                    io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.open(PhaseScript.class, SUPERVISOR)) {
                if (in == null) {
                    throw new IOException("the supervisor script is missing from the gpu-sanitize jar");
                }
                Files.copy(in, target);
            }
        }
        return target;
    }

    static void writePhase(
            Path phaseDir, String workDir, Map<String, String> set, List<String> removed, List<String> argv)
            throws IOException {
        StringBuilder script =
                new StringBuilder("# written by gpu-sanitize: this phase's command (supervise.sh runs it)\n");
        String startError = quote(phaseDir.resolve("start.error").toString());
        if (workDir != null) {
            script.append("cd ")
                    .append(quote(workDir))
                    .append(" || { echo ")
                    .append(quote("cannot start: no working directory " + workDir))
                    .append(" > ")
                    .append(startError)
                    .append("; exit 126; }\n");
        }
        removed.forEach(name -> script.append("unset ").append(name).append('\n'));
        set.forEach((name, value) -> {
            if (name.startsWith(PREPEND)) {
                String variable = name.substring(PREPEND.length());
                script.append("export ")
                        .append(variable)
                        .append('=')
                        .append(quote(value))
                        .append("\"${")
                        .append(variable)
                        .append(":+:$")
                        .append(variable)
                        .append("}\"\n");
            } else {
                script.append("export ")
                        .append(name)
                        .append('=')
                        .append(quote(value))
                        .append('\n');
            }
        });
        String program = argv.get(0);
        String missing = "cannot start " + program + ": not found or not executable";
        script.append(
                        program.contains("/")
                                ? "if [ ! -x " + quote(program) + " ] || [ -d " + quote(program) + " ]"
                                : "if ! command -v " + quote(program) + " > /dev/null 2>&1")
                .append("; then echo ")
                .append(quote(missing))
                .append(" > ")
                .append(startError)
                .append("; exit 127; fi\n");
        script.append("exec");
        argv.forEach(arg -> script.append(' ').append(quote(arg)));
        script.append('\n');
        writeOwnerOnly(phaseDir.resolve(PHASE_SCRIPT), script.toString());
    }

    /**
     * The phase's script holds the job's command as given, secrets included (it must, to run it): readable by its
     * owner alone where the file system has POSIX permissions (created so, never widened); the runner masks it once
     * the phase ran.
     */
    static void writeOwnerOnly(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
            Files.createFile(
                    file,
                    java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                            java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    /** The sidecar the supervisor runs beside the phase and stops after it (the memory sampler). */
    public static void writeSidecar(Path phaseDir, List<String> argv, Path stdout, Path stderr) throws IOException {
        StringBuilder script = new StringBuilder("# written by gpu-sanitize: runs beside the phase\nexec");
        argv.forEach(arg -> script.append(' ').append(quote(arg)));
        script.append(" > ").append(quote(stdout.toString())).append(" 2> ").append(quote(stderr.toString()));
        Files.writeString(phaseDir.resolve(SIDECAR), script.append('\n'), StandardCharsets.UTF_8);
    }

    static void writeConf(Path phaseDir, Map<String, String> settings) throws IOException {
        StringBuilder conf = new StringBuilder("# written by gpu-sanitize: read by supervise.sh\n");
        settings.forEach((name, value) ->
                conf.append(name).append('=').append(quote(value)).append('\n'));
        Files.writeString(phaseDir.resolve(CONF), conf, StandardCharsets.UTF_8);
    }

    /** VALUE as one word of a POSIX sh command line, whatever it holds. */
    public static String quote(String value) {
        return "'" + value.replace("'", "'\\''") + "'";
    }
}

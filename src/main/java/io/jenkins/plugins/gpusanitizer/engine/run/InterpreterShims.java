package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Carries the probe with the interpreter, not only the environment (issue #47, 14): a run script that does
 * {@code export PYTHONPATH=./} (common in research repositories) would drop the probe folder, and with it every
 * count of the run's work. The phases with the probe get a folder of {@code python}, {@code python3},
 * {@code python3.N} shims first on PATH; each puts the probe folder back in front of PYTHONPATH when it is not
 * there (and says so: a {@code probe-path} line in the phase's probe output) and execs the interpreter of that name
 * found next on PATH, so {@code sys.executable}, and every child it starts, is the real one and inherits the
 * restored PYTHONPATH.
 *
 * <p>Not carried: an interpreter started by its absolute path (a venv's {@code bin/python}, a console script's
 * shebang such as torchrun's) after PYTHONPATH was reset, or with {@code -E}/{@code -I}. Nothing is written into
 * the job's Python installation. A shim is written only for a name the phase's PATH has, so a missing interpreter
 * is still "not found" at the start of the phase.
 */
final class InterpreterShims {
    static final String DIR = "bin";
    static final String RECORD = "probe-path";
    private static final List<String> NAMES = names();

    private InterpreterShims() {}

    private static List<String> names() {
        List<String> names = new ArrayList<>(List.of("python", "python3"));
        for (int minor = 6; minor <= 20; minor++) {
            names.add("python3." + minor);
        }
        return names;
    }

    /**
     * Writes the shims for the interpreters {@code path} has into {@code probeDir/bin} (once: a name already there is
     * kept); returns the folder, or null when the path has none of them.
     */
    static Path install(Path probeDir, String path) throws IOException {
        Path bin = probeDir.resolve(DIR);
        Set<String> found = new LinkedHashSet<>();
        for (String folder : path == null ? new String[0] : path.split(File.pathSeparator, -1)) {
            Path d = Path.of(folder.isEmpty() ? "." : folder).toAbsolutePath();
            if (d.equals(bin.toAbsolutePath())) {
                continue;
            }
            for (String name : NAMES) {
                Path p = d.resolve(name);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    found.add(name);
                }
            }
        }
        if (found.isEmpty()) {
            return null;
        }
        Files.createDirectories(bin);
        for (String name : found) {
            Path shim = bin.resolve(name);
            if (!Files.exists(shim)) {
                Files.writeString(shim, script(probeDir, bin), StandardCharsets.UTF_8);
                if (shim.getFileSystem().supportedFileAttributeViews().contains("posix")) {
                    Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
        }
        return bin;
    }

    /** The shim: POSIX sh only; the probe and shim folders are written in, quoted. */
    static String script(Path probeDir, Path bin) {
        return "#!/bin/sh\n"
                + "# written by gpu-sanitize (docs/probe.md): the probe folder back in front of PYTHONPATH, then the\n"
                + "# interpreter of this name found next on PATH\n"
                + "probe=" + PhaseScript.quote(probeDir.toString()) + "\n"
                + "shims=" + PhaseScript.quote(bin.toString()) + "\n"
                + "name=${0##*/}\n"
                + "case \":${PYTHONPATH-}:\" in\n"
                + "  *\":$probe:\"*) ;;\n"
                + "  *)\n"
                + "    PYTHONPATH=\"$probe${PYTHONPATH:+:$PYTHONPATH}\"\n"
                + "    export PYTHONPATH\n"
                + "    if [ -n \"${GPU_SANITIZE_PROBE_OUT-}\" ]; then\n"
                + "      printf '{\"type\":\"" + RECORD
                + "\",\"event\":\"restored\",\"program\":\"%s\",\"pid\":%s}\\n' \\\n"
                + "        \"$name\" \"$$\" >> \"$GPU_SANITIZE_PROBE_OUT\" 2> /dev/null\n"
                + "    fi ;;\n"
                + "esac\n"
                + "set -f\n"
                + "IFS=:\n"
                + "for d in $PATH; do\n"
                + "  [ -n \"$d\" ] || d=.\n"
                + "  [ \"$d\" = \"$shims\" ] && continue\n"
                + "  if [ -f \"$d/$name\" ] && [ -x \"$d/$name\" ]; then\n"
                + "    unset IFS\n"
                + "    set +f\n"
                + "    exec \"$d/$name\" \"$@\"\n"
                + "  fi\n"
                + "done\n"
                + "echo \"$name: not found (on PATH after gpu-sanitize's interpreter shims in $shims)\" >&2\n"
                + "exit 127\n";
    }
}

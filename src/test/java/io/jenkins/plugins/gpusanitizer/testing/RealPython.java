package io.jenkins.plugins.gpusanitizer.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/** This machine's own Python, by its real path: the stand-in tools put a fake python3 first on a job's PATH. */
public final class RealPython {
    private RealPython() {}

    /** The resolved path of the python3 on this JVM's PATH. */
    public static String path() {
        try {
            Process p = new ProcessBuilder("python3", "-c", "import os, sys; print(os.path.realpath(sys.executable))")
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            p.waitFor();
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The stand-in torch's folder (test resources probe/fake-torch), for a real Python job's PYTHONPATH. */
    public static String fakeTorch() {
        try {
            return Path.of(RealPython.class.getResource("/probe/fake-torch").toURI())
                    .toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}

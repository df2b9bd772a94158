package io.jenkins.plugins.gpusanitizer.engine.run;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a short probe command, keeping its output in a file of the run directory. */
record CommandOutput(int exitCode, String output) {

    static CommandOutput run(List<String> argv, Map<String, String> env, Path saveTo, int timeoutSeconds) {
        try {
            Files.createDirectories(saveTo.getParent());
            ProcessBuilder pb = new ProcessBuilder(argv)
                    .redirectErrorStream(true)
                    .redirectOutput(saveTo.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().clear();
            pb.environment().putAll(env);
            Process p = pb.start();
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return new CommandOutput(-1, read(saveTo) + "\n(timed out after " + timeoutSeconds + " s)");
            }
            return new CommandOutput(p.exitValue(), read(saveTo));
        } catch (IOException e) {
            return new CommandOutput(-2, "cannot run " + argv.get(0) + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RunException("interrupted while probing " + argv.get(0));
        }
    }

    private static String read(Path p) throws IOException {
        byte[] b = Files.readAllBytes(p);
        return new String(b, 0, Math.min(b.length, 1 << 20), StandardCharsets.UTF_8);
    }

    String firstLine() {
        String t = output.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }
}

package io.jenkins.plugins.gpusanitizer.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** {@code gpu-sanitize run}: placeholder until the runner lands. */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Runs a job in three phases on a GPU (not yet available).")
final class RunCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        System.err.println("gpu-sanitize: run is not available in this build");
        return ExitCodes.ERROR;
    }
}

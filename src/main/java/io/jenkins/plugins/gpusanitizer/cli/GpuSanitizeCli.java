package io.jenkins.plugins.gpusanitizer.cli;

import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code gpu-sanitize}: the standalone command. */
@Command(
        name = "gpu-sanitize",
        mixinStandardHelpOptions = true,
        version = "gpu-sanitize 0.1.0",
        description =
                "Finds GPU memory bugs in PyTorch jobs with compute-sanitizer and blocking launches, and gates merges on them.",
        subcommands = {AnalyzeCommand.class, RunCommand.class})
public final class GpuSanitizeCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a subcommand is required: analyze or run");
    }

    public static void main(String[] args) {
        // the platform's charset, as PrintWriter(OutputStream) picks it, now said rather than implied
        Charset charset = Charset.defaultCharset();
        System.exit(execute(
                args,
                new PrintWriter(new OutputStreamWriter(System.out, charset), true),
                new PrintWriter(new OutputStreamWriter(System.err, charset), true)));
    }

    /** Runs the CLI with the given streams; returns the exit code (tests call this). */
    public static int execute(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new GpuSanitizeCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setParameterExceptionHandler((ex, a) -> {
            err.println("gpu-sanitize: " + ex.getMessage());
            err.println("Try 'gpu-sanitize "
                    + (ex.getCommandLine().getCommandName().equals("gpu-sanitize")
                            ? ""
                            : ex.getCommandLine().getCommandName() + " ")
                    + "--help'.");
            return ExitCodes.USAGE;
        });
        cl.setExecutionExceptionHandler((ex, c, parse) -> {
            err.println("gpu-sanitize: internal error: " + ex);
            ex.printStackTrace(err);
            return ExitCodes.ERROR;
        });
        return cl.execute(args);
    }
}

package io.jenkins.plugins.gpusanitizer.cli;

import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Gate policy options shared by analyze and run. */
final class PolicyOptions {
    @Option(
            names = "--suppress",
            paramLabel = "SPEC",
            description =
                    "suppress matching defects: 'key=value;...' with keys id, tool, kind, kernel, message, frame (regexes), reason; "
                            + "repeatable. An empty value, or a regex that matches every text (.*, x*), is refused.")
    List<String> suppress = new ArrayList<>();

    @Option(
            names = "--no-default-suppressions",
            description = "do not suppress vendor-library noise and follow-on API errors.")
    boolean noDefaultSuppressions;

    @Option(
            names = "--count-pytorch-kernels",
            description = "initcheck records in PyTorch's own kernels (launched from libtorch_cuda.so) count; by"
                    + " default they are suppressed and listed (pytorch-kernel-initcheck).")
    boolean countPyTorchKernels;

    @Option(
            names = "--vendor-module",
            paramLabel = "REGEX",
            description =
                    "vendor library file name regex (replaces the defaults libcudnn.*, libcublas.*, libcublasLt.*, libcufft.*, libcusparse.*, libnccl.*); repeatable.")
    List<String> vendorModules = new ArrayList<>();

    @Option(
            names = "--tool-action",
            paramLabel = "TOOL=fail|unstable|ignore",
            description =
                    "what a tool's defects do (defaults: memcheck=fail, racecheck=fail, initcheck=unstable, synccheck=unstable); repeatable.")
    List<String> toolActions = new ArrayList<>();

    @Option(
            names = "--oom-action",
            paramLabel = "fail|unstable|ignore",
            description = "what an out-of-memory crash does (default unstable).")
    String oomAction;

    @Option(
            names = "--memory-growth-action",
            paramLabel = "fail|unstable|ignore",
            description = "what growing GPU memory does (default unstable).")
    String growthAction;

    @Option(
            names = "--growth-tolerance",
            paramLabel = "MIB_PER_MIN",
            description = "growth below this rate is accepted (default 1).")
    Double growthTolerance;

    @Option(
            names = "--memory-fill-horizon",
            paramLabel = "DURATION",
            description = "sustained GPU memory growth acts (--memory-growth-action) only when, at the measured rate, "
                    + "it would fill the GPU within this time: 7d, 25h, 90m; a bare number is hours "
                    + "(default 7d, a long training run).")
    String memoryFillHorizon;

    @Option(
            names = "--memory-min-judged",
            paramLabel = "S",
            description = "a memory curve whose part after warm-up (the first quarter of the job, or until memory "
                    + "reached its level) is shorter than this many seconds is too short to judge: no memory "
                    + "verdict (default 10).")
    Double memoryMinJudged;

    GatePolicy toPolicy(CommandLine cl) {
        GatePolicy.Builder b = GatePolicy.builder()
                .defaultSuppressions(!noDefaultSuppressions)
                .countPyTorchKernels(countPyTorchKernels);
        try {
            for (String s : suppress) {
                b.suppress(PatternSuppression.parse(s));
            }
            for (String v : vendorModules) {
                Pattern.compile(v);
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(
                    cl,
                    e instanceof PatternSyntaxException p
                            ? "--vendor-module: bad regex: " + p.getDescription()
                            : e.getMessage());
        }
        if (!vendorModules.isEmpty()) {
            b.vendorModules(vendorModules);
        }
        for (var ta : toolActions(cl)) {
            b.toolAction(ta.getKey(), ta.getValue());
        }
        if (oomAction != null) {
            b.oomAction(action(cl, "--oom-action", oomAction));
        }
        if (growthAction != null) {
            b.memoryGrowthAction(action(cl, "--memory-growth-action", growthAction));
        }
        if (growthTolerance != null) {
            b.growthToleranceMiBPerMin(growthTolerance);
        }
        Double horizon = fillHorizonHours(cl);
        if (horizon != null) {
            b.memoryFillHorizonHours(horizon);
        }
        if (memoryMinJudged != null) {
            b.memoryMinJudgedSeconds(memoryMinJudged);
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--memory-min-judged: " + e.getMessage());
        }
    }

    Double fillHorizonHours(CommandLine cl) {
        if (memoryFillHorizon == null) {
            return null;
        }
        try {
            return GatePolicy.parseHours(memoryFillHorizon);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--memory-fill-horizon: " + e.getMessage());
        }
    }

    java.util.List<java.util.Map.Entry<Tool, GateAction>> toolActions(CommandLine cl) {
        try {
            return toolActions.stream().map(GateAction::parseToolAction).toList();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, "--tool-action: " + e.getMessage());
        }
    }

    static GateAction action(CommandLine cl, String option, String value) {
        try {
            return GateAction.parse(value);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, option + ": " + e.getMessage());
        }
    }
}

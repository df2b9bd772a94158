package io.jenkins.plugins.gpusanitizer.steps;

import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The step's parameters onto the engine's {@link RunSpec}, one to one. The deprecated string forms
 * ({@code tools}, {@code toolActions}, {@code suppressions}) are read as before; given together with
 * their list forms ({@code sanitizerTools}, {@code suppressionRules}) they are refused.
 */
final class RunSpecMapping {
    private RunSpecMapping() {}

    /**
     * The engine's spec for a step's parameters.
     *
     * @param outDir the run directory on the agent
     * @throws IllegalArgumentException with a one-line message for a value that cannot run
     */
    static RunSpec toSpec(GpuSanitizeStep step, String outDir) {
        String id = step.getId();
        if (!id.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException(
                    "id '" + id + "': use letters, digits, '-' and '_' (it is part of URLs and paths)");
        }
        RunSpec spec = new RunSpec()
                .command(List.of(required(step.getCommand(), "command")))
                .printLimit(step.getPrintLimit())
                .stopAfterDefects(step.getStopAfterDefects())
                .coverage(CoverageMode.of(step.getSanitizerCoverage(), "sanitizerCoverage"))
                .keepCachingAllocator(step.isKeepCachingAllocator())
                .regressionSeconds(step.getRegressionSeconds())
                .regressionMultiple(step.getRegressionMultiple())
                .referenceSeconds(step.getReferenceSeconds())
                .expandableSegments(step.isExpandableSegments())
                .probe(step.isProbe())
                .isolation(isolation(step))
                .overlapBlocking(step.isOverlapBlocking())
                .regressionBeside(!step.isRegressionAfter())
                .excludeVendorKernels(step.isExcludeVendorKernels())
                .gpuLock(step.isGpuLock())
                .gpuLockTimeoutSeconds(step.getGpuLockTimeout())
                .throughputRegex(step.getThroughputRegex())
                .throughputBaseline(step.getThroughputBaseline())
                .computeSanitizer(step.getComputeSanitizer())
                .python(step.getPython())
                .outDir(outDir)
                .defaultSuppressions(step.isDefaultSuppressions())
                .countPyTorchKernels(step.isCountPyTorchKernels())
                .timeoutSeconds(Phase.SANITIZER, step.getSanitizerTimeout())
                .timeoutSeconds(Phase.BLOCKING, step.getBlockingTimeout())
                .timeoutSeconds(Phase.REGRESSION, step.getRegressionTimeout());
        if (step.getGpus() != null) {
            spec.gpus(split(step.getGpus()), "gpus");
        }
        if (step.getSanitizerCommand() != null) {
            spec.sanitizerCommand(List.of(step.getSanitizerCommand()));
        }
        List<Phase> phases = new ArrayList<>();
        for (String phase : split(step.getPhases())) {
            phases.add(Phase.fromId(phase)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "phases: unknown phase '" + phase + "' (sanitizer, blocking, regression)")));
        }
        spec.tools(tools(step, spec)).phases(phases);
        if (step.getOomAction() != null) {
            spec.oomAction(action("oomAction", step.getOomAction()));
        }
        if (step.getMemoryGrowthAction() != null) {
            spec.memoryGrowthAction(action("memoryGrowthAction", step.getMemoryGrowthAction()));
        }
        if (step.getMemoryFillHorizon() != null) {
            try {
                spec.memoryFillHorizonHours(GatePolicy.parseHours(step.getMemoryFillHorizon()));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("memoryFillHorizon: " + e.getMessage());
            }
        }
        spec.maskEnv(maskNames(step));
        List<String> suppressions = suppressions(step);
        if (!suppressions.isEmpty()) {
            spec.suppressions(suppressions);
        }
        try {
            spec.validate();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        return spec;
    }

    /** The variable names of {@code maskValues}; a one-line error for one that cannot name a variable. */
    static List<String> maskNames(GpuSanitizeStep step) {
        List<String> names = split(step.getMaskValues());
        for (String name : names) {
            if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                throw new IllegalArgumentException("maskValues: '" + name
                        + "' is not an environment variable name (bind a credential with withCredentials and name"
                        + " its variable)");
            }
        }
        return names;
    }

    /** The tools in order, their actions set on the spec; from sanitizerTools, or from the deprecated strings. */
    private static List<Tool> tools(GpuSanitizeStep step, RunSpec spec) {
        List<Tool> tools = new ArrayList<>();
        List<SanitizerTool> sanitizerTools = step.getSanitizerTools();
        if (sanitizerTools != null) {
            if (step.getToolsIfGiven() != null || step.getToolActions() != null) {
                throw new IllegalArgumentException("sanitizerTools replaces tools and toolActions: give one or the"
                        + " other (tools: '" + step.getTools() + "', toolActions: '" + step.getToolActions() + "')");
            }
            for (SanitizerTool sanitizerTool : sanitizerTools) {
                Tool tool = sanitizerTool.engineTool();
                tools.add(tool);
                sanitizerTool.gateAction().ifPresent(gateAction -> spec.toolAction(tool, gateAction));
            }
            return tools;
        }
        for (String tool : split(step.getTools())) {
            tools.add(Tool.fromId(tool)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "tools: unknown tool '" + tool + "' (memcheck, racecheck, initcheck, synccheck)")));
        }
        if (step.getToolActions() != null) {
            for (String toolAction : split(step.getToolActions())) {
                try {
                    Map.Entry<Tool, GateAction> parsed = GateAction.parseToolAction(toolAction);
                    spec.toolAction(parsed.getKey(), parsed.getValue());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("toolActions: " + e.getMessage());
                }
            }
        }
        return tools;
    }

    /** The suppression specs: from suppressionRules, or the lines of the deprecated suppressions text. */
    private static List<String> suppressions(GpuSanitizeStep step) {
        List<Suppression> rules = step.getSuppressionRules();
        if (rules != null) {
            if (step.getSuppressions() != null) {
                throw new IllegalArgumentException(
                        "suppressionRules replaces suppressions: give one or the other, not both");
            }
            return rules.stream().map(Suppression::toSpec).toList();
        }
        return suppressionLines(step.getSuppressions());
    }

    /** The suppression lines of the deprecated multi-line text: blank lines and # comments left out. */
    static List<String> suppressionLines(String text) {
        if (text == null) {
            return List.of();
        }
        return text.lines()
                .map(String::trim)
                .filter(line -> !line.isEmpty() && !line.startsWith("#"))
                .toList();
    }

    private static GateAction action(String field, String value) {
        try {
            return GateAction.parse(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage());
        }
    }

    /** A comma- or space-separated list. */
    private static Isolation isolation(GpuSanitizeStep step) {
        if (step.getWorkspaceLimitMB() < 0) {
            throw new IllegalArgumentException(
                    "workspaceLimitMB: " + step.getWorkspaceLimitMB() + " is negative (0: no limit)");
        }
        return new Isolation(step.isIsolateWorkspace(), step.getWorkspaceLimitMB(), split(step.getSharedPaths()));
    }

    static List<String> split(String text) {
        if (text == null) {
            return List.of();
        }
        return List.of(text.split("[,\\s]+")).stream()
                .map(String::trim)
                .filter(item -> !item.isEmpty())
                .toList();
    }

    private static String required(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return value;
    }
}

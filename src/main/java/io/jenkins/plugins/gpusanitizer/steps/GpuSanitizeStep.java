package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.EnvVars;
import hudson.Extension;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Item;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.util.FormValidation;
import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.Isolation;
import io.jenkins.plugins.gpusanitizer.results.GpuSanitizeResultSummary;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jenkinsci.Symbol;
import org.jenkinsci.plugins.workflow.steps.Step;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.jenkinsci.plugins.workflow.steps.StepDescriptor;
import org.jenkinsci.plugins.workflow.steps.StepExecution;
import org.kohsuke.stapler.AncestorInPath;
import org.kohsuke.stapler.DataBoundConstructor;
import org.kohsuke.stapler.DataBoundSetter;
import org.kohsuke.stapler.QueryParameter;
import org.kohsuke.stapler.verb.POST;

/**
 * {@code gpuSanitize command: 'python train.py'}: runs the command three ways on the GPU agent and
 * gates the build. The step holds its parameters and its descriptor; {@link RunSpecMapping} maps them
 * one to one onto the engine's {@link RunSpec}, {@link GpuSanitizeExecution} runs it and returns a
 * {@link GpuSanitizeResultSummary} to the script ({@code def result = gpuSanitize(...)}).
 */
public class GpuSanitizeStep extends Step implements Serializable {
    private static final long serialVersionUID = 1L;

    /** The defaults of the text parameters that have one; config.jelly repeats them (JellyViewsTest). */
    static final String DEFAULT_TOOLS = "memcheck";

    static final String DEFAULT_PHASES = "sanitizer,blocking,regression";
    static final String DEFAULT_COVERAGE = "kernels";
    static final String DEFAULT_ID = "gpu-sanitizer";
    static final String DEFAULT_NAME = "GPU Sanitizer";

    private final String command;
    private String sanitizerCommand;
    /** Null when not given: the CUDA_VISIBLE_DEVICES the build inherited, else GPU 0. */
    private String gpus;
    /** The deprecated string form of {@link #sanitizerTools}: null when not given. */
    private String tools;

    private List<SanitizerTool> sanitizerTools;
    private int printLimit = 1000;
    private int stopAfterDefects;
    private String sanitizerCoverage = DEFAULT_COVERAGE;
    private boolean keepCachingAllocator;
    private String phases = DEFAULT_PHASES;
    private int sanitizerTimeout = 3600;
    private int blockingTimeout = 3600;
    private int regressionTimeout = 3600;
    private Double regressionSeconds;
    private double regressionMultiple = 2.0;
    private Double referenceSeconds;
    private boolean expandableSegments;
    private boolean probe = true;
    private boolean isolateWorkspace = true;
    private String sharedPaths;
    private int workspaceLimitMB = (int) Isolation.DEFAULT_LIMIT_MIB;
    private boolean overlapBlocking = true;
    private boolean regressionAfter;
    private boolean excludeVendorKernels;
    private boolean gpuLock = true;
    private int gpuLockTimeout = RunSpec.DEFAULT_GPU_LOCK_TIMEOUT_SECONDS;
    private String throughputRegex;
    private Double throughputBaseline;
    private String toolActions;
    private String oomAction;
    private String memoryGrowthAction;
    private String memoryFillHorizon;
    private String suppressions;
    private List<Suppression> suppressionRules;
    private int keepRawLogs;
    private boolean defaultSuppressions = true;
    private boolean countPyTorchKernels;
    private String computeSanitizer;
    private String python;
    private String maskValues;
    private boolean failOnNewOnly;
    private String id = DEFAULT_ID;
    private String name = DEFAULT_NAME;

    @DataBoundConstructor
    public GpuSanitizeStep(String command) {
        this.command = command;
    }

    public String getCommand() {
        return command;
    }

    public String getSanitizerCommand() {
        return sanitizerCommand;
    }

    @DataBoundSetter
    public void setSanitizerCommand(String sanitizerCommand) {
        this.sanitizerCommand = blankToNull(sanitizerCommand);
    }

    @CheckForNull
    public String getGpus() {
        return gpus;
    }

    @DataBoundSetter
    public void setGpus(String gpus) {
        this.gpus = blankToNull(gpus);
    }

    /** The tools to run, in order, each with its gate action; null when not given (then {@link #getTools}). */
    @CheckForNull
    public List<SanitizerTool> getSanitizerTools() {
        return sanitizerTools;
    }

    @DataBoundSetter
    public void setSanitizerTools(List<SanitizerTool> sanitizerTools) {
        this.sanitizerTools =
                sanitizerTools == null || sanitizerTools.isEmpty() ? null : new ArrayList<>(sanitizerTools);
    }

    /**
     * The tools as a comma-separated string.
     *
     * @deprecated use {@link #getSanitizerTools}: {@code sanitizerTools: [sanitizerTool(tool: 'memcheck')]}
     */
    @Deprecated
    public String getTools() {
        return tools == null ? DEFAULT_TOOLS : tools;
    }

    /** The deprecated string, only when a snippet gave it. */
    @CheckForNull
    String getToolsIfGiven() {
        return tools;
    }

    /** @deprecated use {@link #setSanitizerTools} */
    @Deprecated
    @DataBoundSetter
    public void setTools(String tools) {
        this.tools = blankToNull(tools);
    }

    public int getPrintLimit() {
        return printLimit;
    }

    @DataBoundSetter
    public void setPrintLimit(int printLimit) {
        this.printLimit = printLimit;
    }

    public int getStopAfterDefects() {
        return stopAfterDefects;
    }

    @DataBoundSetter
    public void setStopAfterDefects(int stopAfterDefects) {
        this.stopAfterDefects = stopAfterDefects;
    }

    public String getSanitizerCoverage() {
        return sanitizerCoverage;
    }

    @DataBoundSetter
    public void setSanitizerCoverage(String sanitizerCoverage) {
        this.sanitizerCoverage = blankTo(sanitizerCoverage, DEFAULT_COVERAGE);
    }

    public boolean isKeepCachingAllocator() {
        return keepCachingAllocator;
    }

    @DataBoundSetter
    public void setKeepCachingAllocator(boolean keepCachingAllocator) {
        this.keepCachingAllocator = keepCachingAllocator;
    }

    public String getPhases() {
        return phases;
    }

    @DataBoundSetter
    public void setPhases(String phases) {
        this.phases = blankTo(phases, DEFAULT_PHASES);
    }

    public int getSanitizerTimeout() {
        return sanitizerTimeout;
    }

    @DataBoundSetter
    public void setSanitizerTimeout(int sanitizerTimeout) {
        this.sanitizerTimeout = sanitizerTimeout;
    }

    public int getBlockingTimeout() {
        return blockingTimeout;
    }

    @DataBoundSetter
    public void setBlockingTimeout(int blockingTimeout) {
        this.blockingTimeout = blockingTimeout;
    }

    public int getRegressionTimeout() {
        return regressionTimeout;
    }

    @DataBoundSetter
    public void setRegressionTimeout(int regressionTimeout) {
        this.regressionTimeout = regressionTimeout;
    }

    public Double getRegressionSeconds() {
        return regressionSeconds;
    }

    @DataBoundSetter
    public void setRegressionSeconds(Double regressionSeconds) {
        this.regressionSeconds = regressionSeconds;
    }

    public double getRegressionMultiple() {
        return regressionMultiple;
    }

    @DataBoundSetter
    public void setRegressionMultiple(double regressionMultiple) {
        this.regressionMultiple = regressionMultiple;
    }

    public Double getReferenceSeconds() {
        return referenceSeconds;
    }

    @DataBoundSetter
    public void setReferenceSeconds(Double referenceSeconds) {
        this.referenceSeconds = referenceSeconds;
    }

    public boolean isExpandableSegments() {
        return expandableSegments;
    }

    @DataBoundSetter
    public void setExpandableSegments(boolean expandableSegments) {
        this.expandableSegments = expandableSegments;
    }

    public boolean isOverlapBlocking() {
        return overlapBlocking;
    }

    /** On one GPU, the blocking run (and the regression run, when it fits) beside the sanitizer run. */
    @DataBoundSetter
    public void setOverlapBlocking(boolean overlapBlocking) {
        this.overlapBlocking = overlapBlocking;
    }

    public boolean isRegressionAfter() {
        return regressionAfter;
    }

    /** On one GPU, the regression run after the sanitizer run, alone, even when the card has room beside it. */
    @DataBoundSetter
    public void setRegressionAfter(boolean regressionAfter) {
        this.regressionAfter = regressionAfter;
    }

    public boolean isExcludeVendorKernels() {
        return excludeVendorKernels;
    }

    /** The vendor libraries' kernels left out of the sanitizer runs (cheaper; what it misses is in the help). */
    @DataBoundSetter
    public void setExcludeVendorKernels(boolean excludeVendorKernels) {
        this.excludeVendorKernels = excludeVendorKernels;
    }

    public boolean isGpuLock() {
        return gpuLock;
    }

    /** Take the step's GPUs exclusively on the agent: parallel builds wait instead of sharing a card. */
    @DataBoundSetter
    public void setGpuLock(boolean gpuLock) {
        this.gpuLock = gpuLock;
    }

    public int getGpuLockTimeout() {
        return gpuLockTimeout;
    }

    /** Seconds to wait for the GPUs before the step ends with ERROR. */
    @DataBoundSetter
    public void setGpuLockTimeout(int gpuLockTimeout) {
        this.gpuLockTimeout = gpuLockTimeout;
    }

    public boolean isProbe() {
        return probe;
    }

    /** The in-process probe in the blocking and regression phases (the failing operator's arguments, allocation sites). */
    @DataBoundSetter
    public void setProbe(boolean probe) {
        this.probe = probe;
    }

    public boolean isIsolateWorkspace() {
        return isolateWorkspace;
    }

    /** Each run in a fresh copy of the workspace (docs/how-it-works.md#what-each-run-sees). */
    @DataBoundSetter
    public void setIsolateWorkspace(boolean isolateWorkspace) {
        this.isolateWorkspace = isolateWorkspace;
    }

    public String getSharedPaths() {
        return sharedPaths;
    }

    /** Paths inside the workspace every run sees as they are, not copied (a dataset); comma or space separated. */
    @DataBoundSetter
    public void setSharedPaths(String sharedPaths) {
        this.sharedPaths = blankToNull(sharedPaths);
    }

    public int getWorkspaceLimitMB() {
        return workspaceLimitMB;
    }

    /** The most each run's copy of the workspace may hold, MiB; 0: no limit. */
    @DataBoundSetter
    public void setWorkspaceLimitMB(int workspaceLimitMB) {
        this.workspaceLimitMB = workspaceLimitMB;
    }

    public String getThroughputRegex() {
        return throughputRegex;
    }

    @DataBoundSetter
    public void setThroughputRegex(String throughputRegex) {
        this.throughputRegex = blankToNull(throughputRegex);
    }

    public Double getThroughputBaseline() {
        return throughputBaseline;
    }

    @DataBoundSetter
    public void setThroughputBaseline(Double throughputBaseline) {
        this.throughputBaseline = throughputBaseline;
    }

    /** @deprecated use {@link SanitizerTool#getAction} in {@link #getSanitizerTools} */
    @Deprecated
    public String getToolActions() {
        return toolActions;
    }

    /** @deprecated use {@link #setSanitizerTools} with {@code sanitizerTool(tool: ..., action: ...)} */
    @Deprecated
    @DataBoundSetter
    public void setToolActions(String toolActions) {
        this.toolActions = blankToNull(toolActions);
    }

    public String getOomAction() {
        return oomAction;
    }

    @DataBoundSetter
    public void setOomAction(String oomAction) {
        this.oomAction = blankToNull(oomAction);
    }

    public String getMemoryGrowthAction() {
        return memoryGrowthAction;
    }

    @DataBoundSetter
    public void setMemoryGrowthAction(String memoryGrowthAction) {
        this.memoryGrowthAction = blankToNull(memoryGrowthAction);
    }

    public String getMemoryFillHorizon() {
        return memoryFillHorizon;
    }

    /** Like {@code --memory-fill-horizon}: 7d, 25h, 90m; a bare number is hours. */
    @DataBoundSetter
    public void setMemoryFillHorizon(String memoryFillHorizon) {
        this.memoryFillHorizon = blankToNull(memoryFillHorizon);
    }

    /** @deprecated use {@link #getSuppressionRules} */
    @Deprecated
    public String getSuppressions() {
        return suppressions;
    }

    /** @deprecated use {@link #setSuppressionRules}: one {@code suppression(...)} per line of the text */
    @Deprecated
    @DataBoundSetter
    public void setSuppressions(String suppressions) {
        this.suppressions = blankToNull(suppressions);
    }

    /** The suppressions; null when not given (then {@link #getSuppressions}). */
    @CheckForNull
    public List<Suppression> getSuppressionRules() {
        return suppressionRules;
    }

    @DataBoundSetter
    public void setSuppressionRules(List<Suppression> suppressionRules) {
        this.suppressionRules =
                suppressionRules == null || suppressionRules.isEmpty() ? null : new ArrayList<>(suppressionRules);
    }

    /** Raw-log retention: 0 keeps every build's raw outputs; N keeps those of the newest N builds (reports always). */
    public int getKeepRawLogs() {
        return keepRawLogs;
    }

    @DataBoundSetter
    public void setKeepRawLogs(int keepRawLogs) {
        this.keepRawLogs = Math.max(0, keepRawLogs);
    }

    public boolean isCountPyTorchKernels() {
        return countPyTorchKernels;
    }

    @DataBoundSetter
    public void setCountPyTorchKernels(boolean countPyTorchKernels) {
        this.countPyTorchKernels = countPyTorchKernels;
    }

    public boolean isDefaultSuppressions() {
        return defaultSuppressions;
    }

    @DataBoundSetter
    public void setDefaultSuppressions(boolean defaultSuppressions) {
        this.defaultSuppressions = defaultSuppressions;
    }

    public String getComputeSanitizer() {
        return computeSanitizer;
    }

    @DataBoundSetter
    public void setComputeSanitizer(String computeSanitizer) {
        this.computeSanitizer = blankToNull(computeSanitizer);
    }

    public String getPython() {
        return python;
    }

    @DataBoundSetter
    public void setPython(String python) {
        this.python = blankToNull(python);
    }

    /**
     * Environment variables whose values are masked in everything the step writes and copies home (the build
     * log, the report, the raw outputs), whatever their names look like: names separated by commas or blanks.
     * For a secret with no hint in its name ({@code AUTH=hf_...}); variables bound by {@code withCredentials}
     * and password parameters are masked without being named.
     */
    public String getMaskValues() {
        return maskValues;
    }

    @DataBoundSetter
    public void setMaskValues(String maskValues) {
        this.maskValues = blankToNull(maskValues);
    }

    public boolean isFailOnNewOnly() {
        return failOnNewOnly;
    }

    @DataBoundSetter
    public void setFailOnNewOnly(boolean failOnNewOnly) {
        this.failOnNewOnly = failOnNewOnly;
    }

    public String getId() {
        return id;
    }

    @DataBoundSetter
    public void setId(String id) {
        this.id = blankTo(id, DEFAULT_ID).trim();
    }

    public String getName() {
        return name;
    }

    @DataBoundSetter
    public void setName(String name) {
        this.name = blankTo(name, DEFAULT_NAME).trim();
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value;
    }

    /** An empty form field means the default (the Snippet Generator sends "" for a field left empty). */
    private static String blankTo(String value, String defaultValue) {
        return value == null || value.isBlank() ? defaultValue : value;
    }

    @Override
    public StepExecution start(StepContext context) {
        return new GpuSanitizeExecution(this, context);
    }

    @Extension
    @Symbol("gpuSanitize")
    public static final class DescriptorImpl extends StepDescriptor {
        /**
         * In the order workflow-step-api checks them ({@code StepDescriptor.checkContextAvailability}
         * reports the first one missing): FilePath first, so outside {@code node} the message is always
         * "Required context class hudson.FilePath is missing", with {@code node} as the step to add.
         * {@code Set.of} would iterate in an order that changes from one JVM start to the next.
         */
        static final Set<Class<?>> REQUIRED_CONTEXT = Collections.unmodifiableSet(new LinkedHashSet<>(
                List.of(FilePath.class, Launcher.class, EnvVars.class, Run.class, TaskListener.class)));

        @Override
        public Set<? extends Class<?>> getRequiredContext() {
            return REQUIRED_CONTEXT;
        }

        @Override
        public String getFunctionName() {
            return "gpuSanitize";
        }

        @Override
        public String getDisplayName() {
            return Messages.GpuSanitizeStep_DisplayName();
        }

        @POST
        public FormValidation doCheckCommand(@AncestorInPath Item item, @QueryParameter String value) {
            if (!FormPermissions.canConfigure(item)) {
                return FormValidation.ok();
            }
            return value == null || value.isBlank()
                    ? FormValidation.error(Messages.GpuSanitizeStep_CommandRequired())
                    : FormValidation.ok();
        }

        @POST
        public FormValidation doCheckTools(@AncestorInPath Item item, @QueryParameter String value) {
            if (!FormPermissions.canConfigure(item)) {
                return FormValidation.ok();
            }
            for (String tool : RunSpecMapping.split(value)) {
                if (Tool.fromId(tool).isEmpty()) {
                    return FormValidation.error(Messages.GpuSanitizeStep_UnknownTool(tool));
                }
            }
            return FormValidation.ok();
        }

        @POST
        public FormValidation doCheckThroughputRegex(@AncestorInPath Item item, @QueryParameter String value) {
            if (!FormPermissions.canConfigure(item) || value == null || value.isBlank()) {
                return FormValidation.ok();
            }
            try {
                Pattern pattern = Pattern.compile(value);
                return pattern.matcher("").groupCount() >= 1
                        ? FormValidation.ok()
                        : FormValidation.warning(Messages.GpuSanitizeStep_RegexWithoutGroup());
            } catch (PatternSyntaxException e) {
                return FormValidation.error(e.getDescription());
            }
        }

        @POST
        public FormValidation doCheckSuppressions(@AncestorInPath Item item, @QueryParameter String value) {
            if (!FormPermissions.canConfigure(item) || value == null) {
                return FormValidation.ok();
            }
            for (String line : RunSpecMapping.suppressionLines(value)) {
                try {
                    PatternSuppression.parse(line);
                } catch (IllegalArgumentException e) {
                    return FormValidation.error(e.getMessage());
                }
            }
            return FormValidation.ok();
        }

        @POST
        public FormValidation doCheckOomAction(@AncestorInPath Item item, @QueryParameter String value) {
            return checkAction(item, value);
        }

        @POST
        public FormValidation doCheckMemoryGrowthAction(@AncestorInPath Item item, @QueryParameter String value) {
            return checkAction(item, value);
        }

        private static FormValidation checkAction(Item item, String value) {
            if (!FormPermissions.canConfigure(item) || value == null || value.isBlank()) {
                return FormValidation.ok();
            }
            return List.of("fail", "unstable", "ignore").contains(value.trim().toLowerCase(Locale.ROOT))
                    ? FormValidation.ok()
                    : FormValidation.error(Messages.GpuSanitizeStep_BadAction(value));
        }
    }
}

package io.jenkins.plugins.gpusanitizer;

import hudson.EnvVars;
import hudson.Extension;
import hudson.FilePath;
import hudson.model.Item;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.util.FormValidation;
import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.gate.Action;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import jenkins.model.Jenkins;
import org.jenkinsci.Symbol;
import org.jenkinsci.plugins.workflow.graph.FlowNode;
import org.jenkinsci.plugins.workflow.steps.Step;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.jenkinsci.plugins.workflow.steps.StepDescriptor;
import org.jenkinsci.plugins.workflow.steps.StepExecution;
import org.jenkinsci.plugins.workflow.steps.SynchronousNonBlockingStepExecution;
import org.kohsuke.stapler.AncestorInPath;
import org.kohsuke.stapler.DataBoundConstructor;
import org.kohsuke.stapler.DataBoundSetter;
import org.kohsuke.stapler.QueryParameter;
import org.kohsuke.stapler.verb.POST;

/**
 * {@code gpuSanitize command: 'python train.py'}: runs the command three ways on the GPU agent and
 * gates the build. Every parameter maps one to one onto the engine's {@link RunSpec}.
 */
public class GpuSanitizeStep extends Step implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String command;
    private String sanitizerCommand;
    private String gpus = "0";
    private String tools = "memcheck";
    private int printLimit = 1000;
    private int stopAfterDefects;
    private boolean keepCachingAllocator;
    private String phases = "sanitizer,blocking,regression";
    private int sanitizerTimeout = 3600;
    private int blockingTimeout = 3600;
    private int regressionTimeout = 3600;
    private Double regressionSeconds;
    private double regressionMultiple = 2.0;
    private Double referenceSeconds;
    private boolean expandableSegments;
    private boolean probe = true;
    private String throughputRegex;
    private Double throughputBaseline;
    private String toolActions;
    private String oomAction;
    private String memoryGrowthAction;
    private String suppressions;
    private boolean defaultSuppressions = true;
    private String computeSanitizer;
    private String python;
    private boolean failOnNewOnly;
    private String id = "gpu-sanitizer";
    private String name = "GPU Sanitizer";

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
    public void setSanitizerCommand(String v) {
        sanitizerCommand = blankToNull(v);
    }

    public String getGpus() {
        return gpus;
    }

    @DataBoundSetter
    public void setGpus(String v) {
        gpus = v;
    }

    public String getTools() {
        return tools;
    }

    @DataBoundSetter
    public void setTools(String v) {
        tools = v;
    }

    public int getPrintLimit() {
        return printLimit;
    }

    @DataBoundSetter
    public void setPrintLimit(int v) {
        printLimit = v;
    }

    public int getStopAfterDefects() {
        return stopAfterDefects;
    }

    @DataBoundSetter
    public void setStopAfterDefects(int v) {
        stopAfterDefects = v;
    }

    public boolean isKeepCachingAllocator() {
        return keepCachingAllocator;
    }

    @DataBoundSetter
    public void setKeepCachingAllocator(boolean v) {
        keepCachingAllocator = v;
    }

    public String getPhases() {
        return phases;
    }

    @DataBoundSetter
    public void setPhases(String v) {
        phases = v;
    }

    public int getSanitizerTimeout() {
        return sanitizerTimeout;
    }

    @DataBoundSetter
    public void setSanitizerTimeout(int v) {
        sanitizerTimeout = v;
    }

    public int getBlockingTimeout() {
        return blockingTimeout;
    }

    @DataBoundSetter
    public void setBlockingTimeout(int v) {
        blockingTimeout = v;
    }

    public int getRegressionTimeout() {
        return regressionTimeout;
    }

    @DataBoundSetter
    public void setRegressionTimeout(int v) {
        regressionTimeout = v;
    }

    public Double getRegressionSeconds() {
        return regressionSeconds;
    }

    @DataBoundSetter
    public void setRegressionSeconds(Double v) {
        regressionSeconds = v;
    }

    public double getRegressionMultiple() {
        return regressionMultiple;
    }

    @DataBoundSetter
    public void setRegressionMultiple(double v) {
        regressionMultiple = v;
    }

    public Double getReferenceSeconds() {
        return referenceSeconds;
    }

    @DataBoundSetter
    public void setReferenceSeconds(Double v) {
        referenceSeconds = v;
    }

    public boolean isExpandableSegments() {
        return expandableSegments;
    }

    @DataBoundSetter
    public void setExpandableSegments(boolean v) {
        expandableSegments = v;
    }

    public boolean isProbe() {
        return probe;
    }

    /** The in-process probe in the blocking and regression phases (the failing operator's arguments, allocation sites). */
    @DataBoundSetter
    public void setProbe(boolean v) {
        probe = v;
    }

    public String getThroughputRegex() {
        return throughputRegex;
    }

    @DataBoundSetter
    public void setThroughputRegex(String v) {
        throughputRegex = blankToNull(v);
    }

    public Double getThroughputBaseline() {
        return throughputBaseline;
    }

    @DataBoundSetter
    public void setThroughputBaseline(Double v) {
        throughputBaseline = v;
    }

    public String getToolActions() {
        return toolActions;
    }

    @DataBoundSetter
    public void setToolActions(String v) {
        toolActions = blankToNull(v);
    }

    public String getOomAction() {
        return oomAction;
    }

    @DataBoundSetter
    public void setOomAction(String v) {
        oomAction = blankToNull(v);
    }

    public String getMemoryGrowthAction() {
        return memoryGrowthAction;
    }

    @DataBoundSetter
    public void setMemoryGrowthAction(String v) {
        memoryGrowthAction = blankToNull(v);
    }

    public String getSuppressions() {
        return suppressions;
    }

    @DataBoundSetter
    public void setSuppressions(String v) {
        suppressions = blankToNull(v);
    }

    public boolean isDefaultSuppressions() {
        return defaultSuppressions;
    }

    @DataBoundSetter
    public void setDefaultSuppressions(boolean v) {
        defaultSuppressions = v;
    }

    public String getComputeSanitizer() {
        return computeSanitizer;
    }

    @DataBoundSetter
    public void setComputeSanitizer(String v) {
        computeSanitizer = blankToNull(v);
    }

    public String getPython() {
        return python;
    }

    @DataBoundSetter
    public void setPython(String v) {
        python = blankToNull(v);
    }

    public boolean isFailOnNewOnly() {
        return failOnNewOnly;
    }

    @DataBoundSetter
    public void setFailOnNewOnly(boolean v) {
        failOnNewOnly = v;
    }

    public String getId() {
        return id;
    }

    @DataBoundSetter
    public void setId(String v) {
        id = v == null || v.isBlank() ? "gpu-sanitizer" : v.trim();
    }

    public String getName() {
        return name;
    }

    @DataBoundSetter
    public void setName(String v) {
        name = v == null || v.isBlank() ? "GPU Sanitizer" : v.trim();
    }

    /**
     * The engine's spec for these parameters.
     *
     * @throws IllegalArgumentException with a one-line message for a value that cannot run
     */
    RunSpec toSpec(String outDir) {
        if (!id.matches("[A-Za-z0-9_-]{1,64}")) {
            throw new IllegalArgumentException(
                    "id '" + id + "': use letters, digits, '-' and '_' (it is part of URLs and paths)");
        }
        RunSpec s = new RunSpec()
                .command(List.of(nz(command, "command")))
                .gpus(split(gpus))
                .printLimit(printLimit)
                .stopAfterDefects(stopAfterDefects)
                .keepCachingAllocator(keepCachingAllocator)
                .regressionSeconds(regressionSeconds)
                .regressionMultiple(regressionMultiple)
                .referenceSeconds(referenceSeconds)
                .expandableSegments(expandableSegments)
                .probe(probe)
                .throughputRegex(throughputRegex)
                .throughputBaseline(throughputBaseline)
                .computeSanitizer(computeSanitizer)
                .python(python)
                .outDir(outDir)
                .defaultSuppressions(defaultSuppressions)
                .timeoutSeconds(Phase.SANITIZER, sanitizerTimeout)
                .timeoutSeconds(Phase.BLOCKING, blockingTimeout)
                .timeoutSeconds(Phase.REGRESSION, regressionTimeout);
        if (sanitizerCommand != null) {
            s.sanitizerCommand(List.of(sanitizerCommand));
        }
        List<Tool> ts = new ArrayList<>();
        for (String t : split(tools)) {
            ts.add(Tool.fromId(t)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "tools: unknown tool '" + t + "' (memcheck, racecheck, initcheck, synccheck)")));
        }
        List<Phase> ps = new ArrayList<>();
        for (String p : split(phases)) {
            ps.add(Phase.fromId(p)
                    .orElseThrow(() -> new IllegalArgumentException(
                            "phases: unknown phase '" + p + "' (sanitizer, blocking, regression)")));
        }
        s.tools(ts).phases(ps);
        if (toolActions != null) {
            for (String ta : split(toolActions)) {
                try {
                    var e = Action.parseToolAction(ta);
                    s.toolAction(e.getKey(), e.getValue());
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("toolActions: " + e.getMessage());
                }
            }
        }
        if (oomAction != null) {
            s.oomAction(action("oomAction", oomAction));
        }
        if (memoryGrowthAction != null) {
            s.memoryGrowthAction(action("memoryGrowthAction", memoryGrowthAction));
        }
        if (suppressions != null) {
            s.suppressions(suppressions
                    .lines()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList());
        }
        try {
            s.validate();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        return s;
    }

    private static Action action(String field, String v) {
        try {
            return Action.parse(v);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(field + ": " + e.getMessage());
        }
    }

    static List<String> split(String s) {
        if (s == null) {
            return List.of();
        }
        return List.of(s.split("[,\\s]+")).stream()
                .map(String::trim)
                .filter(x -> !x.isEmpty())
                .toList();
    }

    private static String nz(String v, String field) {
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return v;
    }

    private static String blankToNull(String v) {
        return v == null || v.isBlank() ? null : v;
    }

    @Override
    public StepExecution start(StepContext context) {
        return new Execution(this, context);
    }

    /** Runs on a background thread; an abort interrupts it and the agent kills the process tree. */
    static final class Execution extends SynchronousNonBlockingStepExecution<Void> {
        private static final long serialVersionUID = 1L;
        private final transient GpuSanitizeStep step;

        Execution(GpuSanitizeStep step, StepContext context) {
            super(context);
            this.step = step;
        }

        @Override
        protected Void run() throws Exception {
            StepContext c = getContext();
            FilePath ws = c.get(FilePath.class);
            TaskListener listener = c.get(TaskListener.class);
            Run<?, ?> run = c.get(Run.class);
            EnvVars env = c.get(EnvVars.class);
            VerdictResult v = new GpuSanitizePublisher(step.id, step.name).perform(step, run, ws, env, listener);
            if (v.result() == hudson.model.Result.UNSTABLE) {
                FlowNode node = c.get(FlowNode.class);
                if (node != null) {
                    node.addOrReplaceAction(new org.jenkinsci.plugins.workflow.actions.WarningAction(v.result())
                            .withMessage(v.message()));
                }
                run.setResult(v.result());
            }
            if (v.abort()) {
                throw new hudson.AbortException(v.message());
            }
            return null;
        }
    }

    @Extension
    @Symbol("gpuSanitize")
    public static final class DescriptorImpl extends StepDescriptor {
        @Override
        public Set<? extends Class<?>> getRequiredContext() {
            return Set.of(FilePath.class, EnvVars.class, TaskListener.class, Run.class, hudson.Launcher.class);
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
            if (!canCheck(item)) {
                return FormValidation.ok();
            }
            return value == null || value.isBlank()
                    ? FormValidation.error(Messages.GpuSanitizeStep_CommandRequired())
                    : FormValidation.ok();
        }

        @POST
        public FormValidation doCheckTools(@AncestorInPath Item item, @QueryParameter String value) {
            if (!canCheck(item)) {
                return FormValidation.ok();
            }
            for (String t : split(value)) {
                if (Tool.fromId(t).isEmpty()) {
                    return FormValidation.error(Messages.GpuSanitizeStep_UnknownTool(t));
                }
            }
            return FormValidation.ok();
        }

        @POST
        public FormValidation doCheckThroughputRegex(@AncestorInPath Item item, @QueryParameter String value) {
            if (!canCheck(item) || value == null || value.isBlank()) {
                return FormValidation.ok();
            }
            try {
                Pattern p = Pattern.compile(value);
                return p.matcher("").groupCount() >= 1
                        ? FormValidation.ok()
                        : FormValidation.warning(Messages.GpuSanitizeStep_RegexWithoutGroup());
            } catch (PatternSyntaxException e) {
                return FormValidation.error(e.getDescription());
            }
        }

        @POST
        public FormValidation doCheckSuppressions(@AncestorInPath Item item, @QueryParameter String value) {
            if (!canCheck(item) || value == null) {
                return FormValidation.ok();
            }
            for (String line : value.lines()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList()) {
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
            if (!canCheck(item) || value == null || value.isBlank()) {
                return FormValidation.ok();
            }
            return List.of("fail", "unstable", "ignore").contains(value.trim().toLowerCase(Locale.ROOT))
                    ? FormValidation.ok()
                    : FormValidation.error(Messages.GpuSanitizeStep_BadAction(value));
        }

        /** Validation reveals nothing secret, but runs only for users who may configure the job (or admins, outside a job). */
        private static boolean canCheck(Item item) {
            if (item == null) {
                return Jenkins.get().hasPermission(Jenkins.ADMINISTER);
            }
            return item.hasPermission(Item.CONFIGURE);
        }
    }
}

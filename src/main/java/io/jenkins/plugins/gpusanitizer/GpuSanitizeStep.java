package io.jenkins.plugins.gpusanitizer;

import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.AbortException;
import hudson.EnvVars;
import hudson.Extension;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Item;
import hudson.model.Result;
import hudson.model.Run;
import hudson.model.TaskListener;
import hudson.util.FormValidation;
import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import jenkins.model.Jenkins;
import jenkins.util.Timer;
import org.jenkinsci.Symbol;
import org.jenkinsci.plugins.workflow.actions.WarningAction;
import org.jenkinsci.plugins.workflow.graph.FlowNode;
import org.jenkinsci.plugins.workflow.steps.EnvironmentExpander;
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

    /** The defaults of the text parameters that have one; config.jelly repeats them (JellyViewsTest). */
    static final String DEFAULT_GPUS = "0";

    static final String DEFAULT_TOOLS = "memcheck";
    static final String DEFAULT_PHASES = "sanitizer,blocking,regression";
    static final String DEFAULT_ID = "gpu-sanitizer";
    static final String DEFAULT_NAME = "GPU Sanitizer";

    private final String command;
    private String sanitizerCommand;
    private String gpus = DEFAULT_GPUS;
    private String tools = DEFAULT_TOOLS;
    private int printLimit = 1000;
    private int stopAfterDefects;
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
    private String throughputRegex;
    private Double throughputBaseline;
    private String toolActions;
    private String oomAction;
    private String memoryGrowthAction;
    private String memoryFillHorizon;
    private String suppressions;
    private boolean defaultSuppressions = true;
    private String computeSanitizer;
    private String python;
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
    public void setSanitizerCommand(String v) {
        sanitizerCommand = blankToNull(v);
    }

    public String getGpus() {
        return gpus;
    }

    @DataBoundSetter
    public void setGpus(String v) {
        gpus = blankTo(v, DEFAULT_GPUS);
    }

    public String getTools() {
        return tools;
    }

    @DataBoundSetter
    public void setTools(String v) {
        tools = blankTo(v, DEFAULT_TOOLS);
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
        phases = blankTo(v, DEFAULT_PHASES);
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

    public String getMemoryFillHorizon() {
        return memoryFillHorizon;
    }

    /** Like {@code --memory-fill-horizon}: 7d, 25h, 90m; a bare number is hours. */
    @DataBoundSetter
    public void setMemoryFillHorizon(String v) {
        memoryFillHorizon = blankToNull(v);
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
        id = blankTo(v, DEFAULT_ID).trim();
    }

    public String getName() {
        return name;
    }

    @DataBoundSetter
    public void setName(String v) {
        name = blankTo(v, DEFAULT_NAME).trim();
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
                    var e = GateAction.parseToolAction(ta);
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
        if (memoryFillHorizon != null) {
            try {
                s.memoryFillHorizonHours(GatePolicy.parseHours(memoryFillHorizon));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("memoryFillHorizon: " + e.getMessage());
            }
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

    private static GateAction action(String field, String v) {
        try {
            return GateAction.parse(v);
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

    /** An empty form field means the default (the Snippet Generator sends "" for a field left empty). */
    private static String blankTo(String v, String dflt) {
        return v == null || v.isBlank() ? dflt : v;
    }

    @Override
    public StepExecution start(StepContext context) {
        return new Execution(this, context);
    }

    /**
     * Runs on a background thread. An abort does not interrupt it while the agent runs: {@link
     * StopControl} asks the agent to stop and waits (bounded) for it, so the results written so far are
     * copied back and attached before the step ends ABORTED.
     */
    static final class Execution extends SynchronousNonBlockingStepExecution<Void> {
        private static final long serialVersionUID = 1L;
        private final transient GpuSanitizeStep step;
        /** Null after a restart (this execution does not resume: workflow-step-api fails it in onResume). */
        private transient StopControl stopControl = new StopControl();

        Execution(GpuSanitizeStep step, StepContext context) {
            super(context);
            this.step = step;
        }

        @Override
        protected Void run() throws Exception {
            Exception failure = null;
            try {
                runStep();
            } catch (Exception e) {
                failure = e;
            } finally {
                stopControl.finished();
            }
            // an abort that StopControl took charge of ends the step with its cause, whatever happened meanwhile:
            // ending it normally would let the Pipeline go on after the user aborted it
            Throwable stopped = stopControl.cause();
            if (stopped != null) {
                Exception e = StopControl.asException(stopped);
                if (failure != null && failure != e) {
                    e.addSuppressed(failure);
                }
                throw e;
            }
            if (failure != null) {
                throw failure;
            }
            return null;
        }

        private void runStep() throws Exception {
            StepContext c = getContext();
            FilePath ws = c.get(FilePath.class);
            TaskListener listener = c.get(TaskListener.class);
            Run<?, ?> run = c.get(Run.class);
            EnvVars env = c.get(EnvVars.class);
            Set<String> sensitive = SecretMasker.sensitiveVariables(c.get(EnvironmentExpander.class), run);
            VerdictResult v = new GpuSanitizePublisher(step.id, step.name)
                    .perform(step, run, ws, env, sensitive, listener, stopControl);
            Throwable stopped = stopControl.cause();
            if (stopped != null) {
                run.setResult(Result.ABORTED);
                throw StopControl.asException(stopped);
            }
            if (v.result() == Result.UNSTABLE) {
                FlowNode node = c.get(FlowNode.class);
                if (node != null) {
                    node.addOrReplaceAction(new WarningAction(v.result()).withMessage(v.message()));
                }
                run.setResult(v.result());
            }
            if (v.abort()) {
                throw new AbortException(v.message());
            }
        }

        @Override
        public void stop(@NonNull Throwable cause) throws Exception {
            // while the agent runs: ask it to stop and let run() finish with the partial results;
            // before or after that (or on a second abort): the default, interrupt and end at once
            StopControl sc = stopControl;
            if (sc == null || !sc.stop(cause, Timer.get(), () -> getContext().onFailure(cause))) {
                super.stop(cause);
            }
        }
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

package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.findings.AllocationRefusedRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.FollowOnApiErrorRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.FrameClassifier;
import io.jenkins.plugins.gpusanitizer.engine.findings.PyTorchKernelRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.SuppressionRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.VendorHandledApiErrorRule;
import io.jenkins.plugins.gpusanitizer.engine.findings.VendorNoiseRule;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What fails the gate. Defaults: any unsuppressed memcheck or racecheck error, a device assert or an
 * illegal-memory-access crash fails; initcheck/synccheck findings, racecheck warnings, out-of-memory,
 * NCCL errors and GPU memory that would fill the card within a week make the build unstable; a tool
 * failure is an error.
 *
 * @param toolActions        per tool, what its (error-level) defects do
 * @param warningAction      what racecheck warnings do
 * @param crashAction        what a memory-fault crash of the job does (illegal address, assert, ...)
 * @param oomAction          what an out-of-memory crash does
 * @param ncclAction         what an NCCL error does
 * @param memoryGrowthAction what a growing memory curve does
 * @param growthToleranceMiBPerMin growth below this is not acted on
 * @param memoryPolicy       how memory curves are judged: the minimum judged duration after warm-up and
 *                           the fill horizon (growth acts only when it would fill the GPU within it)
 * @param suppressions       rules, in order; the first match suppresses
 * @param vendorModules      regexes of vendor library file names
 */
public record GatePolicy(
        Map<Tool, GateAction> toolActions,
        GateAction warningAction,
        GateAction crashAction,
        GateAction oomAction,
        GateAction ncclAction,
        GateAction memoryGrowthAction,
        double growthToleranceMiBPerMin,
        MemoryCurve.Policy memoryPolicy,
        List<SuppressionRule> suppressions,
        List<String> vendorModules) {

    public GatePolicy {
        toolActions = Map.copyOf(toolActions);
        suppressions = List.copyOf(suppressions);
        vendorModules = List.copyOf(vendorModules);
    }

    public static List<SuppressionRule> defaultSuppressions() {
        return List.of(
                new VendorNoiseRule(),
                new VendorHandledApiErrorRule(),
                new FollowOnApiErrorRule(),
                new AllocationRefusedRule());
    }

    public static GatePolicy defaults() {
        return builder().build();
    }

    public GateAction actionFor(Tool tool, boolean error) {
        return error ? toolActions.getOrDefault(tool, GateAction.FAIL) : warningAction;
    }

    /**
     * A duration in hours from {@code 7d}, {@code 25h}, {@code 90m}, {@code 600s}, {@code 1w}; a bare
     * number is hours.
     *
     * @throws IllegalArgumentException (one line) for anything else or a duration that is not positive
     */
    public static double parseHours(String text) {
        java.util.regex.Matcher m = DURATION.matcher(text == null ? "" : text.trim());
        double v = m.matches() ? Double.parseDouble(m.group(1)) : 0;
        if (!(v > 0)) {
            throw new IllegalArgumentException("'" + text + "' is not a positive duration (e.g. 7d, 25h, 90m, 600s)");
        }
        return v
                * switch (m.group(2).toLowerCase(java.util.Locale.ROOT)) {
                    case "s" -> 1 / 3600.0;
                    case "m" -> 1 / 60.0;
                    case "d" -> 24;
                    case "w" -> 24 * 7;
                    default -> 1;
                };
    }

    private static final java.util.regex.Pattern DURATION =
            java.util.regex.Pattern.compile("(\\d{1,9}(?:\\.\\d{1,9})?)\\s*([smhdwSMHDW]?)");

    public FrameClassifier frameClassifier() {
        return new FrameClassifier(vendorModules);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Mutable builder: the CLI and the Jenkins step map their options onto it one by one. */
    public static final class Builder {
        private final Map<Tool, GateAction> toolActions = new EnumMap<>(Map.of(
                Tool.MEMCHECK,
                GateAction.FAIL,
                Tool.RACECHECK,
                GateAction.FAIL,
                Tool.INITCHECK,
                GateAction.UNSTABLE,
                Tool.SYNCCHECK,
                GateAction.UNSTABLE));
        private GateAction warningAction = GateAction.UNSTABLE;
        private GateAction crashAction = GateAction.FAIL;
        private GateAction oomAction = GateAction.UNSTABLE;
        private GateAction ncclAction = GateAction.UNSTABLE;
        private GateAction memoryGrowthAction = GateAction.UNSTABLE;
        private double growthTolerance = 1.0;
        private double memoryMinJudgedSeconds = MemoryCurve.Policy.DEFAULT.minJudgedSeconds();
        private double memoryFillHorizonHours = MemoryCurve.Policy.DEFAULT.fillHorizonHours();
        private boolean defaultSuppressions = true;
        private boolean countPyTorchKernels;
        private final List<SuppressionRule> userSuppressions = new ArrayList<>();
        private List<String> vendorModules = FrameClassifier.DEFAULT_VENDOR_MODULES;

        public Builder toolAction(Tool tool, GateAction action) {
            toolActions.put(tool, action);
            return this;
        }

        public Builder warningAction(GateAction a) {
            warningAction = a;
            return this;
        }

        public Builder crashAction(GateAction a) {
            crashAction = a;
            return this;
        }

        public Builder oomAction(GateAction a) {
            oomAction = a;
            return this;
        }

        public Builder ncclAction(GateAction a) {
            ncclAction = a;
            return this;
        }

        public Builder memoryGrowthAction(GateAction a) {
            memoryGrowthAction = a;
            return this;
        }

        public Builder growthToleranceMiBPerMin(double t) {
            growthTolerance = t;
            return this;
        }

        /** @see MemoryCurve.Policy#minJudgedSeconds() */
        public Builder memoryMinJudgedSeconds(double seconds) {
            memoryMinJudgedSeconds = seconds;
            return this;
        }

        /** @see MemoryCurve.Policy#fillHorizonHours() */
        public Builder memoryFillHorizonHours(double hours) {
            memoryFillHorizonHours = hours;
            return this;
        }

        public Builder defaultSuppressions(boolean on) {
            defaultSuppressions = on;
            return this;
        }

        /** Whether initcheck's records inside PyTorch's own kernels count ({@link PyTorchKernelRule}). */
        public Builder countPyTorchKernels(boolean count) {
            countPyTorchKernels = count;
            return this;
        }

        public Builder suppress(SuppressionRule rule) {
            userSuppressions.add(rule);
            return this;
        }

        public Builder vendorModules(List<String> regexes) {
            vendorModules = List.copyOf(regexes);
            return this;
        }

        public GatePolicy build() {
            List<SuppressionRule> rules = new ArrayList<>(userSuppressions);
            if (defaultSuppressions) {
                rules.addAll(GatePolicy.defaultSuppressions());
                if (!countPyTorchKernels) {
                    rules.add(new PyTorchKernelRule());
                }
            }
            return new GatePolicy(
                    toolActions,
                    warningAction,
                    crashAction,
                    oomAction,
                    ncclAction,
                    memoryGrowthAction,
                    growthTolerance,
                    new MemoryCurve.Policy(memoryMinJudgedSeconds, memoryFillHorizonHours),
                    rules,
                    vendorModules);
        }
    }
}

package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.Extension;
import hudson.model.Describable;
import hudson.model.Descriptor;
import hudson.model.Item;
import hudson.util.FormValidation;
import hudson.util.ListBoxModel;
import io.jenkins.plugins.gpusanitizer.engine.findings.PatternSuppression;
import io.jenkins.plugins.gpusanitizer.engine.findings.SuppressionPattern;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;
import org.jenkinsci.Symbol;
import org.kohsuke.stapler.AncestorInPath;
import org.kohsuke.stapler.DataBoundConstructor;
import org.kohsuke.stapler.DataBoundSetter;
import org.kohsuke.stapler.QueryParameter;
import org.kohsuke.stapler.verb.POST;

/**
 * One suppression: every field given must match a defect for it to be suppressed (it stays in the
 * report with its rule). {@code suppression(id: 'bug-1', kernel: '^fused_scale$', reason: 'BUG-1')}.
 * The engine's {@link PatternSuppression} reads it as {@code key=value;...}, the CLI's {@code
 * --suppress} syntax, so a value cannot hold {@code ;}.
 */
public class Suppression implements Describable<Suppression>, Serializable {
    private static final long serialVersionUID = 1L;

    private String id;
    private String tool;
    private String kind;
    private String kernel;
    private String message;
    private String frame;
    private String reason;

    @DataBoundConstructor
    public Suppression() {}

    @CheckForNull
    public String getId() {
        return id;
    }

    @DataBoundSetter
    public void setId(String id) {
        this.id = blankToNull(id);
    }

    /** memcheck, racecheck, initcheck or synccheck; null for any. */
    @CheckForNull
    public String getTool() {
        return tool;
    }

    @DataBoundSetter
    public void setTool(String tool) {
        this.tool = blankToNull(tool);
    }

    /** A defect kind (out-of-bounds, race, leak, ...); null for any. */
    @CheckForNull
    public String getKind() {
        return kind;
    }

    @DataBoundSetter
    public void setKind(String kind) {
        this.kind = blankToNull(kind);
    }

    /** A regex over the kernel's name. */
    @CheckForNull
    public String getKernel() {
        return kernel;
    }

    @DataBoundSetter
    public void setKernel(String kernel) {
        this.kernel = blankToNull(kernel);
    }

    /** A regex over the tool's message. */
    @CheckForNull
    public String getMessage() {
        return message;
    }

    @DataBoundSetter
    public void setMessage(String message) {
        this.message = blankToNull(message);
    }

    /** A regex over the function, file and module of any host frame. */
    @CheckForNull
    public String getFrame() {
        return frame;
    }

    @DataBoundSetter
    public void setFrame(String frame) {
        this.frame = blankToNull(frame);
    }

    @CheckForNull
    public String getReason() {
        return reason;
    }

    @DataBoundSetter
    public void setReason(String reason) {
        this.reason = blankToNull(reason);
    }

    /**
     * The engine's spec of this suppression ({@code id=bug-1;kernel=^fused_scale$;reason=BUG-1}).
     *
     * @throws IllegalArgumentException when a value holds {@code ;} or the engine refuses the spec
     */
    String toSpec() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("id", id);
        fields.put("tool", tool);
        fields.put("kind", kind);
        fields.put("kernel", kernel);
        fields.put("message", message);
        fields.put("frame", frame);
        fields.put("reason", reason);
        fields.values().removeIf(value -> value == null);
        if (fields.isEmpty()) {
            throw new IllegalArgumentException(
                    "suppressionRules: a suppression without any field would hide every defect");
        }
        for (Map.Entry<String, String> field : fields.entrySet()) {
            if (field.getValue().contains(";")) {
                throw new IllegalArgumentException(
                        "suppressionRules: " + field.getKey() + " '" + field.getValue() + "' holds ';'");
            }
        }
        String spec = fields.entrySet().stream()
                .map(field -> field.getKey() + "=" + field.getValue())
                .collect(Collectors.joining(";"));
        PatternSuppression.parse(spec);
        return spec;
    }

    private static String blankToNull(String value) {
        return value == null || value.isBlank() ? null : value.trim();
    }

    @Extension
    @Symbol("suppression")
    public static final class DescriptorImpl extends Descriptor<Suppression> {
        @NonNull
        @Override
        public String getDisplayName() {
            return Messages.Suppression_DisplayName();
        }

        @POST
        public ListBoxModel doFillToolItems(@AncestorInPath Item item) {
            ListBoxModel tools = new ListBoxModel();
            if (!FormPermissions.canConfigure(item)) {
                return tools;
            }
            tools.add(Messages.Suppression_Any(), "");
            for (Tool engineTool : Tool.values()) {
                tools.add(engineTool.id(), engineTool.id());
            }
            return tools;
        }

        @POST
        public ListBoxModel doFillKindItems(@AncestorInPath Item item) {
            ListBoxModel kinds = new ListBoxModel();
            if (!FormPermissions.canConfigure(item)) {
                return kinds;
            }
            kinds.add(Messages.Suppression_Any(), "");
            for (Kind engineKind : Kind.values()) {
                kinds.add(engineKind.id(), engineKind.id());
            }
            return kinds;
        }

        @POST
        public FormValidation doCheckKernel(@AncestorInPath Item item, @QueryParameter String value) {
            return checkRegex(item, "kernel", value);
        }

        @POST
        public FormValidation doCheckMessage(@AncestorInPath Item item, @QueryParameter String value) {
            return checkRegex(item, "message", value);
        }

        @POST
        public FormValidation doCheckFrame(@AncestorInPath Item item, @QueryParameter String value) {
            return checkRegex(item, "frame", value);
        }

        private static FormValidation checkRegex(Item item, String field, String value) {
            if (!FormPermissions.canConfigure(item) || value == null || value.isBlank()) {
                return FormValidation.ok();
            }
            if (value.contains(";")) {
                return FormValidation.error(Messages.Suppression_NoSemicolon());
            }
            try {
                SuppressionPattern.compile(field, value);
                return FormValidation.ok();
            } catch (IllegalArgumentException e) {
                return FormValidation.error(e.getMessage());
            }
        }
    }
}

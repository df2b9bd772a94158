package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.Extension;
import hudson.model.Describable;
import hudson.model.Descriptor;
import hudson.model.Item;
import hudson.util.FormValidation;
import hudson.util.ListBoxModel;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import java.io.Serializable;
import java.util.Locale;
import java.util.Optional;
import org.jenkinsci.Symbol;
import org.kohsuke.stapler.AncestorInPath;
import org.kohsuke.stapler.DataBoundConstructor;
import org.kohsuke.stapler.DataBoundSetter;
import org.kohsuke.stapler.QueryParameter;
import org.kohsuke.stapler.verb.POST;

/**
 * One compute-sanitizer tool with what its defects do to the build: {@code sanitizerTool(tool:
 * 'initcheck', action: 'fail')}. No action means the tool's default (memcheck and racecheck fail,
 * initcheck and synccheck make the build unstable).
 */
public class SanitizerTool implements Describable<SanitizerTool>, Serializable {
    private static final long serialVersionUID = 1L;

    private final String tool;
    private String action;

    @DataBoundConstructor
    public SanitizerTool(String tool) {
        this.tool = tool == null ? null : tool.trim().toLowerCase(Locale.ROOT);
    }

    public String getTool() {
        return tool;
    }

    /** fail, unstable or ignore; null for the tool's default. */
    @CheckForNull
    public String getAction() {
        return action;
    }

    @DataBoundSetter
    public void setAction(String action) {
        this.action = action == null || action.isBlank() ? null : action.trim().toLowerCase(Locale.ROOT);
    }

    /** The engine's tool. @throws IllegalArgumentException naming the tool when it is unknown */
    Tool engineTool() {
        return Tool.fromId(tool == null ? "" : tool)
                .orElseThrow(() -> new IllegalArgumentException(
                        "sanitizerTools: unknown tool '" + tool + "' (memcheck, racecheck, initcheck, synccheck)"));
    }

    /** The gate action, if one is given. @throws IllegalArgumentException for an unknown action */
    Optional<GateAction> gateAction() {
        if (action == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(GateAction.parse(action));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("sanitizerTools: " + tool + ": " + e.getMessage());
        }
    }

    @Extension
    @Symbol("sanitizerTool")
    public static final class DescriptorImpl extends Descriptor<SanitizerTool> {
        @NonNull
        @Override
        public String getDisplayName() {
            return Messages.SanitizerTool_DisplayName();
        }

        @POST
        public ListBoxModel doFillToolItems(@AncestorInPath Item item) {
            ListBoxModel tools = new ListBoxModel();
            if (!FormPermissions.canConfigure(item)) {
                return tools;
            }
            for (Tool engineTool : Tool.values()) {
                tools.add(engineTool.id(), engineTool.id());
            }
            return tools;
        }

        @POST
        public ListBoxModel doFillActionItems(@AncestorInPath Item item) {
            ListBoxModel actions = new ListBoxModel();
            if (!FormPermissions.canConfigure(item)) {
                return actions;
            }
            actions.add(Messages.SanitizerTool_DefaultAction(), "");
            for (GateAction gateAction : GateAction.values()) {
                String id = gateAction.name().toLowerCase(Locale.ROOT);
                actions.add(id, id);
            }
            return actions;
        }

        @POST
        public FormValidation doCheckTool(@AncestorInPath Item item, @QueryParameter String value) {
            if (!FormPermissions.canConfigure(item)) {
                return FormValidation.ok();
            }
            return Tool.fromId(value == null ? "" : value.trim()).isPresent()
                    ? FormValidation.ok()
                    : FormValidation.error(Messages.GpuSanitizeStep_UnknownTool(value));
        }
    }
}

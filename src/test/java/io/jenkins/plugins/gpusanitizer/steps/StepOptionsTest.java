package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.mockStatic;
import static org.mockito.Mockito.when;

import hudson.model.Item;
import hudson.util.FormValidation;
import hudson.util.ListBoxModel;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.model.CoverageMode;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mockito.MockedStatic;

/**
 * Issue #16, 4: tools with their gate action and suppressions as describables; the deprecated string
 * parameters keep working, and the two forms together are refused.
 */
class StepOptionsTest {
    private static SanitizerTool tool(String id, String action) {
        SanitizerTool tool = new SanitizerTool(id);
        tool.setAction(action);
        return tool;
    }

    private static List<String> values(ListBoxModel model) {
        return model.stream().map(option -> option.value).toList();
    }

    private static Item configurer(boolean mayConfigure) {
        Item item = mock(Item.class);
        when(item.hasPermission(any())).thenReturn(mayConfigure);
        return item;
    }

    @Test
    void theListParametersReachTheSpecLikeTheStrings() {
        GpuSanitizeStep list = new GpuSanitizeStep("python3 train.py");
        list.setSanitizerTools(List.of(tool("memcheck", null), tool("initcheck", "fail")));
        Suppression suppression = new Suppression();
        suppression.setId("bug-1");
        suppression.setKernel("^fused_scale$");
        suppression.setReason("BUG-1");
        list.setSuppressionRules(List.of(suppression));
        GpuSanitizeStep strings = new GpuSanitizeStep("python3 train.py");
        strings.setTools("memcheck,initcheck");
        strings.setToolActions("initcheck=fail");
        strings.setSuppressions("id=bug-1;kernel=^fused_scale$;reason=BUG-1");
        for (GpuSanitizeStep step : List.of(list, strings)) {
            RunSpec spec = RunSpecMapping.toSpec(step, "/o");
            assertThat(spec.tools()).containsExactly(Tool.MEMCHECK, Tool.INITCHECK);
            assertThat(spec.policy().actionFor(Tool.INITCHECK, true)).isEqualTo(GateAction.FAIL);
            assertThat(spec.suppressions()).containsExactly("id=bug-1;kernel=^fused_scale$;reason=BUG-1");
        }
        assertThat(list.getTools())
                .as("the deprecated getter's default: the snippet leaves it out")
                .isEqualTo("memcheck");
    }

    @Test
    void bothFormsTogetherAreRefusedNamingBoth() {
        GpuSanitizeStep tools = new GpuSanitizeStep("python3 train.py");
        tools.setTools("racecheck");
        tools.setSanitizerTools(List.of(tool("memcheck", null)));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(tools, "/o"))
                .hasMessageStartingWith("sanitizerTools replaces tools and toolActions: give one or the other");
        GpuSanitizeStep actions = new GpuSanitizeStep("python3 train.py");
        actions.setToolActions("initcheck=fail");
        actions.setSanitizerTools(List.of(tool("initcheck", null)));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(actions, "/o"))
                .hasMessageStartingWith("sanitizerTools replaces tools and toolActions");
        GpuSanitizeStep suppressions = new GpuSanitizeStep("python3 train.py");
        suppressions.setSuppressions("id=a;kernel=x");
        Suppression rule = new Suppression();
        rule.setKernel("y");
        suppressions.setSuppressionRules(List.of(rule));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(suppressions, "/o"))
                .hasMessage("suppressionRules replaces suppressions: give one or the other, not both");
    }

    @Test
    void badOptionsGetOneLineMessages() {
        GpuSanitizeStep unknown = new GpuSanitizeStep("python3 train.py");
        unknown.setSanitizerTools(List.of(tool("valgrind", null)));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(unknown, "/o"))
                .hasMessageStartingWith("sanitizerTools: unknown tool 'valgrind'");
        GpuSanitizeStep action = new GpuSanitizeStep("python3 train.py");
        action.setSanitizerTools(List.of(tool("memcheck", "explode")));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(action, "/o"))
                .hasMessage("sanitizerTools: memcheck: expected fail, unstable or ignore, got 'explode'");
        Suppression semicolon = new Suppression();
        semicolon.setKernel("a;b");
        assertThatThrownBy(semicolon::toSpec).hasMessage("suppressionRules: kernel 'a;b' holds ';'");
        assertThatThrownBy(new Suppression()::toSpec).hasMessageContaining("without any field");
        Suppression badRegex = new Suppression();
        badRegex.setKernel("(");
        assertThatThrownBy(badRegex::toSpec).hasMessageContaining("bad regex for kernel");
        GpuSanitizeStep coverage = new GpuSanitizeStep("python3 train.py");
        coverage.setSanitizerCoverage("most");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(coverage, "/o"))
                .hasMessage("sanitizerCoverage 'most': use one of kernels, full");
        coverage.setSanitizerCoverage("full");
        assertThat(RunSpecMapping.toSpec(coverage, "/o").coverage()).isEqualTo(CoverageMode.FULL);
        coverage.setSanitizerCoverage("");
        assertThat(RunSpecMapping.toSpec(coverage, "/o").coverage())
                .as("blank is the default")
                .isEqualTo(CoverageMode.KERNELS);
    }

    /** The form's choices are the engine's enums, for those who may configure the job only. */
    @Test
    void theChoicesComeFromTheEngineForConfigurersOnly() {
        SanitizerTool.DescriptorImpl tools = new SanitizerTool.DescriptorImpl();
        assertThat(values(tools.doFillToolItems(configurer(true))))
                .containsExactly("memcheck", "racecheck", "initcheck", "synccheck");
        assertThat(values(tools.doFillActionItems(configurer(true)))).containsExactly("", "fail", "unstable", "ignore");
        assertThat(tools.doFillToolItems(configurer(false))).isEmpty();
        assertThat(tools.doFillActionItems(configurer(false))).isEmpty();
        Suppression.DescriptorImpl suppressions = new Suppression.DescriptorImpl();
        assertThat(values(suppressions.doFillKindItems(configurer(true))))
                .startsWith("", "out-of-bounds")
                .contains("race", "leak");
        assertThat(values(suppressions.doFillToolItems(configurer(true)))).startsWith("", "memcheck");
        assertThat(suppressions.doFillKindItems(configurer(false))).isEmpty();
    }

    /**
     * Issue #25, 9: a pattern that matches every kernel, message or frame would hide every defect; the
     * step refuses it in one line (the recorder turns it into an AbortException) and the form says so.
     * A blank field is the form's "not given" and is no pattern.
     */
    @Test
    void aMatchAllPatternIsRefusedByTheStepAndItsForm() {
        Suppression all = new Suppression();
        all.setTool("memcheck");
        all.setKernel("x*");
        assertThatThrownBy(all::toSpec)
                .hasMessage("suppression 'tool=memcheck;kernel=x*': kernel 'x*' matches every kernel: it would"
                        + " suppress every defect; narrow it");
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py");
        Suppression message = new Suppression();
        message.setMessage(".*");
        step.setSuppressionRules(List.of(message));
        assertThatThrownBy(() -> RunSpecMapping.toSpec(step, "/o")).hasMessageContaining("matches every message");

        FormValidation error = mock(FormValidation.class);
        FormValidation ok = mock(FormValidation.class);
        try (MockedStatic<FormValidation> form = mockStatic(FormValidation.class)) {
            form.when(() -> FormValidation.error(anyString())).thenReturn(error);
            form.when(FormValidation::ok).thenReturn(ok);
            Suppression.DescriptorImpl descriptor = new Suppression.DescriptorImpl();
            assertThat(descriptor.doCheckFrame(configurer(true), "|")).isSameAs(error);
            form.verify(() ->
                    FormValidation.error("frame '|' matches every frame: it would suppress every defect; narrow it"));
            assertThat(descriptor.doCheckKernel(configurer(true), "^fused_scale$"))
                    .isSameAs(ok);
            assertThat(descriptor.doCheckKernel(configurer(true), "")).isSameAs(ok);
        }
    }
}

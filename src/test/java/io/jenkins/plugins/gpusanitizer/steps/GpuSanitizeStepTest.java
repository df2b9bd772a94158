package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;

import hudson.EnvVars;
import hudson.FilePath;
import hudson.Launcher;
import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.gate.GateAction;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.run.Phase;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import java.util.ArrayList;
import java.util.List;
import org.jenkinsci.plugins.workflow.steps.MissingContextVariableException;
import org.jenkinsci.plugins.workflow.steps.StepContext;
import org.junit.jupiter.api.Test;

/** The step's parameters map one to one onto the engine's RunSpec (compiled here against API stubs). */
class GpuSanitizeStepTest {

    @Test
    void defaultsAreTheEngineDefaults() {
        RunSpec s =
                RunSpecMapping.toSpec(new GpuSanitizeStep("python3 train.py"), "/ws@tmp/gpu-sanitize/7-gpu-sanitizer");
        RunSpec engine = new RunSpec();
        assertThat(s.command()).containsExactly("python3 train.py");
        assertThat(s.shellCommand()).isTrue();
        assertThat(s.gpus()).isEqualTo(engine.gpus());
        assertThat(s.tools()).isEqualTo(engine.tools());
        assertThat(s.phases()).isEqualTo(engine.phases());
        assertThat(s.printLimit()).isEqualTo(engine.printLimit());
        assertThat(s.keepCachingAllocator()).isFalse();
        assertThat(s.probe()).isTrue();
        assertThat(s.regressionBeside()).isTrue();
        assertThat(s.excludeVendorKernels()).isFalse();
        assertThat(s.regressionMultiple()).isEqualTo(engine.regressionMultiple());
        for (Phase p : Phase.values()) {
            assertThat(s.timeoutSeconds(p)).isEqualTo(engine.timeoutSeconds(p));
        }
        assertThat(s.outDir()).isEqualTo("/ws@tmp/gpu-sanitize/7-gpu-sanitizer");
        assertThat(s.maskEnv()).isEmpty();
        assertThat(s.policy().suppressions())
                .extracting(r -> r.id())
                .containsExactly(
                        "vendor-library-noise",
                        "vendor-handled-api-error",
                        "follow-on-api-error",
                        "allocation-refused",
                        "pytorch-kernel-initcheck");
        assertThat(s.countPyTorchKernels()).isFalse();
    }

    @Test
    void everyParameterReachesTheSpec() {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 train.py --epochs 1");
        step.setSanitizerCommand("python3 train.py --steps 5 --batch 1");
        step.setGpus("1, 2");
        step.setTools("memcheck,racecheck");
        step.setPrintLimit(50);
        step.setKeepCachingAllocator(true);
        step.setPhases("blocking, sanitizer");
        step.setSanitizerTimeout(100);
        step.setBlockingTimeout(200);
        step.setRegressionTimeout(300);
        step.setRegressionSeconds(45.0);
        step.setRegressionMultiple(3.0);
        step.setReferenceSeconds(12.5);
        step.setExpandableSegments(true);
        step.setProbe(false);
        step.setRegressionAfter(true);
        step.setExcludeVendorKernels(true);
        step.setCountPyTorchKernels(true);
        step.setThroughputRegex("it/s ([0-9.]+)");
        step.setThroughputBaseline(230.0);
        step.setToolActions("initcheck=fail");
        step.setOomAction("fail");
        step.setMemoryGrowthAction("ignore");
        step.setMemoryFillHorizon("2d");
        step.setSuppressions("# known\nid=bug-1;kernel=^fused_scale$;reason=BUG-1\n\n");
        step.setDefaultSuppressions(false);
        step.setComputeSanitizer("/opt/cuda/bin/compute-sanitizer");
        step.setPython("/venv/bin/python3");
        step.setMaskValues("AUTH, MODEL_PASS\n_x1");
        RunSpec s = RunSpecMapping.toSpec(step, "/out");
        assertThat(s.maskEnv()).containsExactly("AUTH", "MODEL_PASS", "_x1");
        assertThat(s.sanitizerCommand()).containsExactly("python3 train.py --steps 5 --batch 1");
        assertThat(s.gpus()).containsExactly("1", "2");
        assertThat(s.tools()).containsExactly(Tool.MEMCHECK, Tool.RACECHECK);
        assertThat(s.printLimit()).isEqualTo(50);
        assertThat(s.keepCachingAllocator()).isTrue();
        assertThat(s.phases()).containsExactly(Phase.BLOCKING, Phase.SANITIZER);
        assertThat(s.timeoutSeconds(Phase.SANITIZER)).isEqualTo(100);
        assertThat(s.timeoutSeconds(Phase.BLOCKING)).isEqualTo(200);
        assertThat(s.timeoutSeconds(Phase.REGRESSION)).isEqualTo(300);
        assertThat(s.regressionSeconds()).isEqualTo(45.0);
        assertThat(s.regressionMultiple()).isEqualTo(3.0);
        assertThat(s.referenceSeconds()).isEqualTo(12.5);
        assertThat(s.expandableSegments()).isTrue();
        assertThat(s.probe()).isFalse();
        assertThat(s.regressionBeside()).isFalse();
        assertThat(s.excludeVendorKernels()).isTrue();
        assertThat(s.countPyTorchKernels()).isTrue();
        assertThat(s.throughputRegex()).isEqualTo("it/s ([0-9.]+)");
        assertThat(s.throughputBaseline()).isEqualTo(230.0);
        assertThat(s.computeSanitizer()).isEqualTo("/opt/cuda/bin/compute-sanitizer");
        assertThat(s.python()).isEqualTo("/venv/bin/python3");
        var policy = s.policy();
        assertThat(policy.suppressions()).singleElement().satisfies(r -> {
            assertThat(r.id()).isEqualTo("bug-1");
            assertThat(r.reason()).isEqualTo("BUG-1");
        });
        assertThat(policy.actionFor(Tool.INITCHECK, true)).isEqualTo(GateAction.FAIL);
        assertThat(policy.oomAction()).isEqualTo(GateAction.FAIL);
        assertThat(policy.memoryGrowthAction()).isEqualTo(GateAction.IGNORE);
        assertThat(policy.memoryPolicy().fillHorizonHours()).isEqualTo(48);
    }

    @Test
    void badValuesGetOneLineMessagesNamingTheParameter() {
        assertThatThrownBy(() -> RunSpecMapping.toSpec(new GpuSanitizeStep(" "), "/o"))
                .hasMessage("command is required");
        GpuSanitizeStep step = new GpuSanitizeStep("python3 t.py");
        step.setTools("memcheck,valgrind");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(step, "/o"))
                .hasMessageStartingWith("tools: unknown tool 'valgrind'");
        GpuSanitizeStep phases = new GpuSanitizeStep("python3 t.py");
        phases.setPhases("sanitizer,warmup");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(phases, "/o"))
                .hasMessageStartingWith("phases: unknown phase 'warmup'");
        GpuSanitizeStep action = new GpuSanitizeStep("python3 t.py");
        action.setOomAction("explode");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(action, "/o"))
                .hasMessage("oomAction: expected fail, unstable or ignore, got 'explode'");
        GpuSanitizeStep horizon = new GpuSanitizeStep("python3 t.py");
        horizon.setMemoryFillHorizon("a week");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(horizon, "/o"))
                .hasMessage("memoryFillHorizon: 'a week' is not a positive duration (e.g. 7d, 25h, 90m, 600s)");
        GpuSanitizeStep mask = new GpuSanitizeStep("python3 t.py");
        mask.setMaskValues("AUTH, hf_abc-123");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(mask, "/o"))
                .hasMessageStartingWith("maskValues: 'hf_abc-123' is not an environment variable name");
        GpuSanitizeStep id = new GpuSanitizeStep("python3 t.py");
        id.setId("../../etc");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(id, "/o")).hasMessageStartingWith("id '../../etc': use letters");
        GpuSanitizeStep supp = new GpuSanitizeStep("python3 t.py");
        supp.setSuppressions("kernel=(");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(supp, "/o")).hasMessageContaining("bad regex for kernel");
        GpuSanitizeStep regex = new GpuSanitizeStep("python3 t.py");
        regex.setThroughputRegex("it/s ((");
        assertThatThrownBy(() -> RunSpecMapping.toSpec(regex, "/o")).hasMessageStartingWith("throughput regex:");
    }

    @Test
    void blankOptionalValuesMeanDefaults() {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 t.py");
        step.setSanitizerCommand("");
        step.setId(" ");
        step.setName("");
        step.setSuppressions("  ");
        assertThat(step.getSanitizerCommand()).isNull();
        assertThat(step.getId()).isEqualTo("gpu-sanitizer");
        assertThat(step.getName()).isEqualTo("GPU Sanitizer");
        assertThat(RunSpecMapping.toSpec(step, "/o").sanitizerCommand()).isEqualTo(List.of("python3 t.py"));
    }

    @Test
    void blankListFieldsMeanTheirDefaults() {
        GpuSanitizeStep step = new GpuSanitizeStep("python3 t.py");
        step.setGpus("");
        step.setTools(" ");
        step.setPhases("");
        // issue #26, 4: no gpus given: the runner takes the inherited CUDA_VISIBLE_DEVICES, else GPU 0
        assertThat(step.getGpus()).isNull();
        assertThat(RunSpecMapping.toSpec(step, "out").gpusFrom()).isNull();
        step.setGpus("1,3");
        assertThat(RunSpecMapping.toSpec(step, "out").gpus()).containsExactly("1", "3");
        assertThat(RunSpecMapping.toSpec(step, "out").gpusFrom()).isEqualTo("gpus");
        assertThat(step.getTools()).isEqualTo("memcheck");
        assertThat(step.getPhases()).isEqualTo("sanitizer,blocking,regression");
    }

    /**
     * Issue #12, 3: workflow-step-api reports the first missing context in getRequiredContext() order.
     * FilePath first, in an ordered set (Set.of's order changes from one JVM start to the next), so
     * outside node the error always names FilePath, whose provider is node.
     */
    @Test
    void outsideANodeTheMissingContextIsAlwaysFilePath() throws Exception {
        GpuSanitizeStep.DescriptorImpl d = new GpuSanitizeStep.DescriptorImpl();
        assertThat(new ArrayList<Class<?>>(d.getRequiredContext()))
                .containsExactly(FilePath.class, Launcher.class, EnvVars.class, Run.class, TaskListener.class);
        assertThat(d.getRequiredContext().getClass().getName())
                .as("an ordered set, not Set.of")
                .doesNotStartWith("java.util.ImmutableCollections");
        // a Pipeline outside node: the build and its listener, no workspace, launcher or agent environment
        StepContext outside = mock(StepContext.class);
        doReturn(mock(Run.class)).when(outside).get(Run.class);
        doReturn((TaskListener) () -> System.out).when(outside).get(TaskListener.class);
        assertThatThrownBy(() -> d.checkContextAvailability(outside))
                .isInstanceOfSatisfying(
                        MissingContextVariableException.class,
                        e -> assertThat(e.getType()).isEqualTo(FilePath.class));
        assertThat(d.getFunctionName()).isEqualTo("gpuSanitize");
    }
}

package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The memory policy options of {@code run} reach the gate of the run (through the serializable spec). */
class RunCommandPolicyTest {
    private static GatePolicy policy(String... args) {
        RunCommand run = new RunCommand();
        CommandLine cl = new CommandLine(run);
        cl.parseArgs(args);
        RunSpec spec = run.toSpec(cl);
        return spec.policy();
    }

    @Test
    void memoryOptionsReachTheRunsPolicy() {
        GatePolicy p = policy(
                "--memory-fill-horizon",
                "36h",
                "--memory-min-judged",
                "30",
                "--growth-tolerance",
                "5",
                "--",
                "python3",
                "train.py");
        assertThat(p.memoryPolicy()).isEqualTo(new MemoryCurve.Policy(30, 36));
        assertThat(p.growthToleranceMiBPerMin()).isEqualTo(5);
        assertThat(policy("--", "python3", "train.py").memoryPolicy()).isEqualTo(MemoryCurve.Policy.DEFAULT);
    }

    /** Issue #41, 4: the CLI's side of the step's maskValues (MaskEnvTest shows the run masking them). */
    @Test
    void maskEnvNamesReachTheSpec() {
        RunCommand run = new RunCommand();
        CommandLine cl = new CommandLine(run);
        cl.parseArgs("--mask-env", "AUTH", "--mask-env=MODEL_PASS", "--", "python3", "train.py");
        assertThat(run.toSpec(cl).maskEnv()).containsExactly("AUTH", "MODEL_PASS");
    }

    @Test
    void badValuesAreUsageErrors() {
        assertThatThrownBy(() -> policy("--memory-fill-horizon", "soon", "--", "python3", "t.py"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--memory-fill-horizon: 'soon' is not a positive duration");
        assertThatThrownBy(() -> policy("--memory-min-judged", "-1", "--", "python3", "t.py"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessageStartingWith("--memory-min-judged: ");
    }
}

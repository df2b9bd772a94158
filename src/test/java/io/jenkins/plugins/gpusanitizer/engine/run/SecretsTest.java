package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Issue #26, 3: which values are secrets, and the report masked as a whole. */
class SecretsTest {
    private static Secrets of(List<String> command) {
        return new Secrets(Map.of(), List.of(), List.of(command));
    }

    @Test
    void credentialLookingOptionsGiveTheirValuesInBothSpellings() {
        Secrets s = of(List.of(
                "python3",
                "train.py",
                "--hf-token",
                "hf_abcdef",
                "--api-key=k3yk3y",
                "--db-password",
                "pw-12345",
                "--AWS_SECRET_ACCESS_KEY=awsSecretX",
                "--access-key",
                "AKIAXYZ",
                "--passwd=qwerty1",
                "--keyboard",
                "qwerty-layout",
                "--monkey",
                "banana",
                "--key-dim",
                "64",
                "--token-budget",
                "true",
                "--epochs",
                "100"));
        assertThat(s.values())
                .containsExactlyInAnyOrder("hf_abcdef", "k3yk3y", "pw-12345", "awsSecretX", "AKIAXYZ", "qwerty1");
    }

    @Test
    void aShellStringIsSplitAndUrlPasswordsAreFoundEverywhere() {
        Secrets s = of(List.of("python3 train.py --token 'hf_quoted1' --db postgres://ci:dbPass99@db:5432/x"));
        assertThat(s.values()).contains("hf_quoted1", "dbPass99");
        assertThat(s.mask("connect mysql://root:other-pw@10.0.0.1/db failed"))
                .as("a URL password by its shape, in any text")
                .isEqualTo("connect mysql://root:****@10.0.0.1/db failed");
        assertThat(s.mask("see https://pytorch.org/docs and user@host:path"))
                .isEqualTo("see https://pytorch.org/docs and user@host:path");
        Secrets env = new Secrets(Map.of("DATABASE_URL", "postgres://u:envPass7@h/x"));
        assertThat(env.mask("pw envPass7")).isEqualTo("pw ****");
    }

    @Test
    void theReportIsMaskedAsAWholeIncludingJsonEscapedForms() {
        Secrets s = new Secrets(Map.of("HF_TOKEN", "hf_\"quo\\ted"));
        ReasonJson reason = new ReasonJson("error", "job", "token hf_\"quo\\ted at https://u:pw12345@h/x");
        ReasonJson masked = s.mask(reason, ReasonJson.class);
        assertThat(masked.message()).isEqualTo("token **** at https://u:****@h/x");
    }
}

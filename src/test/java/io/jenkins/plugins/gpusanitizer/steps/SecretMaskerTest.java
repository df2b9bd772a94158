package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.EnvVars;
import hudson.model.ParameterValue;
import hudson.model.ParametersAction;
import hudson.model.Run;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jenkinsci.plugins.workflow.steps.EnvironmentExpander;
import org.junit.jupiter.api.Test;

/**
 * Issue #12, 8: what the raw pages serve is masked with the build's sensitive variables, not only the
 * variables whose names look secret.
 */
class SecretMaskerTest {
    /** What credentials-binding's withCredentials puts in the step's context. */
    static final class Bindings extends EnvironmentExpander {
        private static final long serialVersionUID = 1L;
        private final Set<String> names;

        Bindings(Set<String> names) {
            this.names = names;
        }

        @Override
        public void expand(EnvVars env) {}

        @Override
        public Set<String> getSensitiveVariables() {
            return names;
        }
    }

    @Test
    void sensitiveVariablesComeFromTheContextAndPasswordParameters() {
        ParameterValue password = mock(ParameterValue.class);
        when(password.getName()).thenReturn("DEPLOY_PW");
        when(password.isSensitive()).thenReturn(true);
        ParameterValue plain = mock(ParameterValue.class);
        when(plain.getName()).thenReturn("EPOCHS");
        ParametersAction parameters = mock(ParametersAction.class);
        when(parameters.getParameters()).thenReturn(List.of(password, plain));
        Run<?, ?> run = mock(Run.class);
        when(run.getAction(ParametersAction.class)).thenReturn(parameters);
        assertThat(SecretMasker.sensitiveVariables(new Bindings(Set.of("HF_CREDS", "S3_URL")), run))
                .containsExactly("DEPLOY_PW", "HF_CREDS", "S3_URL");
        assertThat(SecretMasker.sensitiveVariables(null, null)).isEmpty();
    }

    @Test
    void bindingsWhateverTheirNamesAndNamesThatLookSecretAreMasked() {
        Map<String, String> env = Map.of(
                "S3_URL", "s3://bucket-xyz/run",
                "GITHUB_TOKEN", "ghp_abcdef",
                "EPOCHS", "100");
        SecretMasker m = SecretMasker.of(env, Set.of("S3_URL"));
        assertThat(m.mask("saving to s3://bucket-xyz/run with ghp_abcdef after 100 epochs"))
                .isEqualTo("saving to **** with **** after 100 epochs");
        assertThat(SecretMasker.of(env, Set.of()).mask("s3://bucket-xyz/run"))
                .as("the name alone does not look secret")
                .isEqualTo("s3://bucket-xyz/run");
        assertThat(m.mask(null)).isNull();
    }

    /** Issue #26, 3: the copy-back masks the engine's new kinds too: credential-looking arguments, URL passwords. */
    @Test
    void credentialLookingArgumentsOfTheStepsCommandAndUrlPasswordsAreMasked() {
        SecretMasker m = SecretMasker.of(
                Map.of("DATABASE_URL", "postgres://ci:envDbPass1@db/x"),
                Set.of(),
                List.of(List.of("python3 train.py --hf-token hf_argTok3n --api-key=k3yValue9 --lr 0.001"
                        + " --db mysql://u:argDbPass2@h/x")));
        assertThat(m.mask("tok hf_argTok3n key k3yValue9 pw envDbPass1 argDbPass2 lr 0.001"))
                .isEqualTo("tok **** key **** pw **** **** lr 0.001");
    }

    @Test
    void escapedFormsInJsonAndHtmlAreMaskedToo() {
        SecretMasker m = new SecretMasker(List.of("p\"w<d>\\x"));
        assertThat(m.mask("{\"message\": \"login p\\\"w<d>\\\\x failed\"}"))
                .isEqualTo("{\"message\": \"login **** failed\"}");
        assertThat(m.mask("<li>login p&quot;w&lt;d&gt;\\x failed</li>")).isEqualTo("<li>login **** failed</li>");
        assertThat(m.mask("login p\"w<d>\\x failed")).isEqualTo("login **** failed");
    }

    @Test
    void streamsAreMaskedAcrossReadBoundariesAndLongestFirst() throws IOException {
        SecretMasker m = new SecretMasker(List.of("abcabc", "abc", "tok"));
        StringBuilder in = new StringBuilder();
        for (int i = 0; i < 50_000; i++) {
            in.append("x abcabcab tok ");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // one byte at a time: every secret straddles a read
        m.copy(trickle(in.toString().getBytes(StandardCharsets.UTF_8)), out);
        String masked = out.toString(StandardCharsets.UTF_8);
        assertThat(masked).isEqualTo("x ****ab **** ".repeat(50_000));
        assertThat(masked).doesNotContain("abc", "tok");
    }

    @Test
    void shortValuesAndEmptySetsChangeNothing() throws IOException {
        SecretMasker m = new SecretMasker(List.of("ab", ""));
        assertThat(m.isEmpty()).isTrue();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        m.copy(new ByteArrayInputStream("ab ab".getBytes(StandardCharsets.UTF_8)), out);
        assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("ab ab");
    }

    @Test
    void copiedFilesStayInsideTheBuildFolder() {
        Path root = Path.of("/builds/7/gpu-sanitizer/gpu-sanitizer");
        String base = "/ws@tmp/gpu-sanitize/7-gpu-sanitizer";
        assertThat(GpuSanitizeRecorder.inside(root, base, base + "/blocking/stderr.log"))
                .isEqualTo(root.resolve("blocking/stderr.log"));
        assertThat(GpuSanitizeRecorder.inside(root, base, base + "/../../etc/passwd"))
                .isNull();
        assertThat(GpuSanitizeRecorder.inside(root, base, "/etc/passwd")).isNull();
        assertThat(GpuSanitizeRecorder.inside(root, base, base + "-other/x")).isNull();
        assertThat(GpuSanitizeRecorder.inside(root, base, base + "/")).isNull();
    }

    private static InputStream trickle(byte[] bytes) {
        return new FilterInputStream(new ByteArrayInputStream(bytes)) {
            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                return super.read(b, off, Math.min(len, 1));
            }
        };
    }
}

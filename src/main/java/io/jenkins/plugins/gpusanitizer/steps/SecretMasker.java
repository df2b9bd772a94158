package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.model.ParameterValue;
import hudson.model.ParametersAction;
import hudson.model.Run;
import io.jenkins.plugins.gpusanitizer.engine.report.Html;
import io.jenkins.plugins.gpusanitizer.engine.run.Secrets;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jenkinsci.plugins.workflow.steps.EnvironmentExpander;

/**
 * Masks the build's secrets in everything copied from the agent into the build folder: the job's
 * stdout/stderr, the tool logs and XML, report.json and report.html, which the raw pages serve to
 * anyone who may read the job. Secrets are the values of the variables the build marks sensitive
 * ({@code withCredentials} bindings through {@link EnvironmentExpander#getSensitiveVariables()},
 * password parameters) and of variables whose names look secret (the engine's rule, {@link Secrets}),
 * each as written, JSON-escaped and HTML-escaped. Streams are masked byte by byte, whatever the line
 * length, as {@code ****} (what credentials-binding writes in the build log).
 */
final class SecretMasker {
    static final byte[] MASK = "****".getBytes(StandardCharsets.UTF_8);
    /** credentials-binding's {@code SecretPatterns.MINIMUM_ENCODED_LENGTH}: shorter forms are not masked. */
    static final int MIN_LENGTH = 3;

    private static final int CHUNK = 64 * 1024;

    private final List<String> secrets = new ArrayList<>();
    private final byte[][] patterns;
    private final boolean[] firstBytes = new boolean[256];
    private final int maxLength;

    SecretMasker(Collection<String> secrets) {
        Set<String> forms = new LinkedHashSet<>();
        for (String secret : secrets) {
            if (secret == null || secret.isEmpty()) {
                continue;
            }
            this.secrets.add(secret);
            forms.add(secret);
            forms.add(Html.esc(secret));
            forms.add(jsonEscaped(secret));
        }
        List<byte[]> encoded = new ArrayList<>();
        for (String form : forms) {
            if (form.length() >= MIN_LENGTH) {
                encoded.add(form.getBytes(StandardCharsets.UTF_8));
            }
        }
        // longest first: no partial leftovers
        encoded.sort(Comparator.comparingInt((byte[] pattern) -> pattern.length).reversed());
        patterns = encoded.toArray(new byte[0][]);
        int longest = 0;
        for (byte[] pattern : patterns) {
            firstBytes[pattern[0] & 0xff] = true;
            longest = Math.max(longest, pattern.length);
        }
        maxLength = longest;
    }

    /** The secrets of a build: its sensitive variables and the variables whose names look secret. */
    static SecretMasker of(Map<String, String> env, Collection<String> sensitiveNames) {
        return of(env, sensitiveNames, List.of());
    }

    /**
     * The same, and the engine's other kinds ({@link Secrets}): the credential-looking arguments of the step's
     * commands ({@code --hf-token VALUE}, {@code --api-key=VALUE}) and the passwords of URLs
     * ({@code scheme://user:PASSWORD@host}) in those commands and in the variables.
     */
    static SecretMasker of(
            Map<String, String> env, Collection<String> sensitiveNames, Collection<List<String>> commands) {
        return new SecretMasker(new Secrets(env, sensitiveNames, commands).values());
    }

    /**
     * The names of the variables the build marks sensitive: {@code withCredentials} bindings and other
     * {@link EnvironmentExpander}s of the step's context, and password parameters.
     */
    static Set<String> sensitiveVariables(@CheckForNull EnvironmentExpander expander, @CheckForNull Run<?, ?> run) {
        Set<String> names = new TreeSet<>();
        if (expander != null) {
            names.addAll(expander.getSensitiveVariables());
        }
        ParametersAction parameters = run == null ? null : run.getAction(ParametersAction.class);
        if (parameters != null) {
            for (ParameterValue parameter : parameters.getParameters()) {
                if (parameter.isSensitive()) {
                    names.add(parameter.getName());
                }
            }
        }
        return names;
    }

    /** The secrets as given (the agent masks its copy of the run directory with them). */
    List<String> secrets() {
        return List.copyOf(secrets);
    }

    boolean isEmpty() {
        return patterns.length == 0;
    }

    /** A text with every secret replaced by {@code ****}; null stays null. */
    String mask(String text) {
        if (text == null || isEmpty()) {
            return text;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        try {
            copy(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Copies a stream, secrets replaced by {@code ****}; a secret split across reads is still found. */
    void copy(InputStream in, OutputStream out) throws IOException {
        if (isEmpty()) {
            in.transferTo(out);
            return;
        }
        byte[] buf = new byte[CHUNK + maxLength];
        int len = 0;
        boolean eof = false;
        while (!eof) {
            int read = in.read(buf, len, buf.length - len);
            if (read < 0) {
                eof = true;
            } else {
                len += read;
            }
            // a match may start only where it fits entirely in what was read; the rest waits for more input
            int safe = eof ? len : len - (maxLength - 1);
            int i = 0;
            int flushed = 0;
            while (i < safe) {
                int match = firstBytes[buf[i] & 0xff] ? matchAt(buf, i, len) : -1;
                if (match < 0) {
                    i++;
                    continue;
                }
                out.write(buf, flushed, i - flushed);
                out.write(MASK);
                i += patterns[match].length;
                flushed = i;
            }
            int keep = Math.max(i, flushed);
            out.write(buf, flushed, keep - flushed);
            System.arraycopy(buf, keep, buf, 0, len - keep);
            len -= keep;
        }
        out.flush();
    }

    private int matchAt(byte[] buf, int at, int len) {
        for (int p = 0; p < patterns.length; p++) {
            byte[] pat = patterns[p];
            if (at + pat.length > len) {
                continue;
            }
            int k = 0;
            while (k < pat.length && buf[at + k] == pat[k]) {
                k++;
            }
            if (k == pat.length) {
                return p;
            }
        }
        return -1;
    }

    /** How a string appears inside a JSON string literal (Jackson's default escaping). */
    static String jsonEscaped(String text) {
        StringBuilder escaped = new StringBuilder(text.length() + 8);
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> escaped.append("\\\"");
                case '\\' -> escaped.append("\\\\");
                case '\n' -> escaped.append("\\n");
                case '\r' -> escaped.append("\\r");
                case '\t' -> escaped.append("\\t");
                case '\b' -> escaped.append("\\b");
                case '\f' -> escaped.append("\\f");
                default -> {
                    if (c < 0x20) {
                        escaped.append(String.format("\\u%04X", (int) c));
                    } else {
                        escaped.append(c);
                    }
                }
            }
        }
        return escaped.toString();
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What the runner masks ({@code ****}) in everything it writes: console lines, command.txt, phase.sh once the
 * phase ran, run.json and the report (so every rendering of it: JSON, HTML, JUnit, SARIF, warnings-ng, the
 * console summary), including the text the report quotes from the job's output. Secrets are:
 *
 * <ul>
 *   <li>values of environment variables whose names look secret (TOKEN, SECRET, PASSWORD, KEY, ...), or that
 *       the caller names sensitive (a CI's credential bindings);
 *   <li>values of credential-looking arguments of the job's command: options whose name holds token, password,
 *       passwd, secret, credential, or the word key (--api-key, --access-key), as {@code --opt value} or
 *       {@code --opt=value};
 *   <li>the password of a URL's user information ({@code scheme://user:PASSWORD@host}), in arguments and
 *       variables, and by its shape in any text masked.
 * </ul>
 *
 * The job's own outputs (stdout, stderr, the tools' logs) are kept raw: they are the evidence, and the job's
 * business.
 */
public final class Secrets {
    static final Pattern SECRET_NAME = Pattern.compile("(?i).*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL).*");
    /** An option whose value is a credential: by a substring of its name, or "key" as a word of it. */
    private static final Pattern SECRET_OPTION = Pattern.compile(
            "(?i)--?(?:[\\w.-]*(?:token|password|passwd|secret|credential)[\\w.-]*|(?:[\\w.]+[-_])?(?:api)?key(?:[-_][\\w.]+)?)");
    /** scheme://user:password@host: group 1 up to the password, group 2 the password. */
    static final Pattern URL_PASSWORD =
            Pattern.compile("([A-Za-z][A-Za-z0-9+.-]*://[^\\s:/@\"'\\\\]*:)([^\\s/@\"'\\\\]+)@");

    private static final Set<String> NOT_SECRET = Set.of("true", "false", "yes", "no", "none", "null", "auto");
    private static final int MIN_LENGTH = 4;
    /** Variables named sensitive by the caller (a CI's credential bindings) are masked from this length on. */
    private static final int MIN_LENGTH_NAMED = 3;

    private final List<String> values;

    public Secrets(Map<String, String> env) {
        this(env, List.of());
    }

    /** Also masks the values of {@code sensitiveNames}, whatever the names look like. */
    public Secrets(Map<String, String> env, Collection<String> sensitiveNames) {
        this(env, sensitiveNames, List.of());
    }

    /**
     * @param commands the job's commands (argv lists; one argument with spaces is a shell string): their
     *                 credential-looking arguments are secrets too
     */
    public Secrets(Map<String, String> env, Collection<String> sensitiveNames, Collection<List<String>> commands) {
        List<String> v = new ArrayList<>();
        env.forEach((name, value) -> {
            if (value == null) {
                return;
            }
            if ((SECRET_NAME.matcher(name).matches() && value.length() >= MIN_LENGTH)
                    || (sensitiveNames.contains(name) && value.length() >= MIN_LENGTH_NAMED)) {
                v.add(value);
            }
            urlPasswords(value, v);
        });
        for (List<String> command : commands) {
            if (command != null) {
                arguments(command, v);
            }
        }
        v.sort(Comparator.comparingInt(String::length).reversed()); // longest first: no partial leftovers
        this.values = v.stream().distinct().toList();
    }

    /** The credential-looking values among a command's arguments (a shell string split at blanks). */
    static void arguments(List<String> argv, List<String> into) {
        List<String> words = new ArrayList<>();
        for (String arg : argv) {
            if (argv.size() == 1 || arg.contains(" ")) {
                for (String word : arg.trim().split("\\s+")) {
                    words.add(unquote(word));
                }
            } else {
                words.add(arg);
            }
        }
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            urlPasswords(word, into);
            int eq = word.indexOf('=');
            if (eq > 0 && SECRET_OPTION.matcher(word.substring(0, eq)).matches()) {
                candidate(word.substring(eq + 1), into);
            } else if (eq < 0 && SECRET_OPTION.matcher(word).matches() && i + 1 < words.size()) {
                String next = words.get(i + 1);
                if (!next.startsWith("-")) {
                    candidate(next, into);
                }
            }
        }
    }

    private static String unquote(String word) {
        String w = word;
        if (w.length() >= 2 && (w.charAt(0) == '\'' || w.charAt(0) == '"') && w.charAt(w.length() - 1) == w.charAt(0)) {
            w = w.substring(1, w.length() - 1);
        }
        int eq = w.indexOf('=');
        if (eq > 0 && w.length() >= eq + 3) {
            char q = w.charAt(eq + 1);
            if ((q == '\'' || q == '"') && w.charAt(w.length() - 1) == q) {
                w = w.substring(0, eq + 1) + w.substring(eq + 2, w.length() - 1);
            }
        }
        return w;
    }

    private static void candidate(String value, List<String> into) {
        if (value.length() >= MIN_LENGTH && !NOT_SECRET.contains(value.toLowerCase(Locale.ROOT))) {
            into.add(value);
        }
    }

    private static void urlPasswords(String text, List<String> into) {
        Matcher m = URL_PASSWORD.matcher(text);
        while (m.find()) {
            candidate(m.group(2), into);
        }
    }

    /** The values masked, longest first. */
    public List<String> values() {
        return values;
    }

    public String mask(String s) {
        if (s == null) {
            return null;
        }
        String out = s;
        for (String v : values) {
            if (out.contains(v)) {
                out = out.replace(v, "****");
            }
        }
        if (out.contains("://")) {
            out = URL_PASSWORD.matcher(out).replaceAll("$1****@");
        }
        return out;
    }

    public List<String> mask(List<String> list) {
        return list.stream().map(this::mask).toList();
    }

    /**
     * The value with every secret masked in every string it holds (and its field names): written as JSON, each
     * secret's JSON-escaped form replaced, read back. Every renderer of the result is masked alike.
     */
    public <T> T mask(T value, Class<T> type) {
        if (value == null) {
            return null;
        }
        ObjectMapper mapper = ReportJson.mapper();
        try {
            String json = mapper.writeValueAsString(value);
            String masked = json;
            for (String v : values) {
                String escaped = mapper.writeValueAsString(v);
                escaped = escaped.substring(1, escaped.length() - 1);
                if (masked.contains(escaped)) {
                    masked = masked.replace(escaped, "****");
                }
            }
            if (masked.contains("://")) {
                masked = URL_PASSWORD.matcher(masked).replaceAll("$1****@");
            }
            return masked.equals(json) ? value : mapper.readValue(masked, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot mask the secrets of a " + type.getSimpleName(), e);
        }
    }
}

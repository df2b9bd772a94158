package io.jenkins.plugins.gpusanitizer.engine.run;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Values of environment variables whose names look secret (TOKEN, SECRET, PASSWORD, KEY, ...) are
 * replaced by {@code ****} in everything the runner itself writes: console lines, command.txt,
 * run.json, the report. The job's own outputs are kept raw (they are the evidence, and the job's
 * business).
 */
public final class Secrets {
    static final Pattern SECRET_NAME = Pattern.compile("(?i).*(TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL).*");
    private static final int MIN_LENGTH = 4;
    /** Variables named sensitive by the caller (a CI's credential bindings) are masked from this length on. */
    private static final int MIN_LENGTH_NAMED = 3;

    private final List<String> values;

    public Secrets(Map<String, String> env) {
        this(env, List.of());
    }

    /** Also masks the values of {@code sensitiveNames}, whatever the names look like. */
    public Secrets(Map<String, String> env, Collection<String> sensitiveNames) {
        List<String> v = new ArrayList<>();
        env.forEach((name, value) -> {
            if (value == null) {
                return;
            }
            if ((SECRET_NAME.matcher(name).matches() && value.length() >= MIN_LENGTH)
                    || (sensitiveNames.contains(name) && value.length() >= MIN_LENGTH_NAMED)) {
                v.add(value);
            }
        });
        v.sort(Comparator.comparingInt(String::length).reversed()); // longest first: no partial leftovers
        this.values = v.stream().distinct().toList();
    }

    /** The values masked, longest first. */
    public List<String> values() {
        return values;
    }

    public String mask(String s) {
        if (s == null || values.isEmpty()) {
            return s;
        }
        String out = s;
        for (String v : values) {
            if (out.contains(v)) {
                out = out.replace(v, "****");
            }
        }
        return out;
    }

    public List<String> mask(List<String> list) {
        return values.isEmpty() ? list : list.stream().map(this::mask).toList();
    }
}

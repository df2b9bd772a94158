package io.jenkins.plugins.gpusanitizer;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.steps.GpuSanitizeStep;
import io.jenkins.plugins.gpusanitizer.steps.SanitizerTool;
import io.jenkins.plugins.gpusanitizer.steps.Suppression;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.kohsuke.stapler.DataBoundSetter;

/**
 * What a newcomer follows first: every relative link of README.md and the pages under docs/ leads to a
 * file (and heading) that exists, and every {@code gpuSanitize} example names only parameters the step
 * and its options have.
 */
class DocsTest {
    static final Path ROOT =
            Path.of(System.getProperty("gs.projectRoot", ".")).toAbsolutePath().normalize();

    static final Pattern LINK = Pattern.compile("!?\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*$");

    /** README.md and the pages under docs/, less the recorded-run folders (docs/h200-*), which are moving out. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !ROOT.resolve("docs")
                            .relativize(p)
                            .getName(0)
                            .toString()
                            .startsWith("h200-"))
                    .sorted()
                    .forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path page : pages()) {
            Matcher m = LINK.matcher(prose(read(page)));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("^[a-z][a-z0-9+.-]*:.*")) {
                    continue; // https:, mailto:
                }
                links++;
                String problem = problem(page, target);
                if (problem != null) {
                    broken.add(ROOT.relativize(page) + ": (" + target + ") " + problem);
                }
            }
        }
        assertThat(links).as("links found").isGreaterThan(20);
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void theStepExamplesUseOnlyTheStepsParameters() throws IOException {
        Map<String, Set<String>> parameters = Map.of(
                "gpuSanitize", parameters(GpuSanitizeStep.class, "command"),
                "sanitizerTool", parameters(SanitizerTool.class, "tool"),
                "suppression", parameters(Suppression.class, null));
        List<Path> sources = new ArrayList<>(pages());
        try (Stream<Path> jenkinsfiles = Files.list(ROOT.resolve("docs/jenkins"))) {
            jenkinsfiles
                    .filter(p -> p.getFileName().toString().startsWith("Jenkinsfile"))
                    .sorted()
                    .forEach(sources::add);
        }
        List<String> wrong = new ArrayList<>();
        int calls = 0;
        for (Path source : sources) {
            for (String groovy : groovy(source)) {
                for (String call : gpuSanitizeCalls(groovy)) {
                    calls++;
                    Set<String> stepArguments = new TreeSet<>();
                    for (String[] argument : namedArguments(call)) {
                        Set<String> known = parameters.get(argument[0]);
                        if (known == null) {
                            continue; // a call that is not an option of the step, e.g. env.GPU.split(':')
                        }
                        if (!known.contains(argument[1])) {
                            wrong.add(ROOT.relativize(source) + ": " + argument[0] + " has no parameter '" + argument[1]
                                    + "' in: " + call.strip());
                        }
                        if (argument[0].equals("gpuSanitize")) {
                            stepArguments.add(argument[1]);
                        }
                    }
                    if (!stepArguments.contains("command")) {
                        wrong.add(ROOT.relativize(source) + ": gpuSanitize without its required command: "
                                + call.strip());
                    }
                }
            }
        }
        assertThat(calls).as("gpuSanitize examples found").isGreaterThan(5);
        assertThat(wrong).isEmpty();
    }

    /** Null when the link's file (and heading, after #) exists. */
    private static String problem(Path page, String target) throws IOException {
        int hash = target.indexOf('#');
        String file = hash < 0 ? target : target.substring(0, hash);
        Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
        if (!resolved.startsWith(ROOT)) {
            return "points outside the repository";
        }
        String relative = ROOT.relativize(resolved).toString().replace('\\', '/');
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (hash < 0 || !relative.endsWith(".md")) {
            return null;
        }
        String anchor = target.substring(hash + 1);
        return anchors(read(resolved)).contains(anchor) ? null : "no heading #" + anchor + " in " + relative;
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new TreeSet<>();
        Matcher m = HEADING.matcher(prose(markdown, false));
        while (m.find()) {
            anchors.add(m.group(1)
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                    .replace(' ', '-'));
        }
        return anchors;
    }

    private static String prose(String markdown) {
        return prose(markdown, true);
    }

    /** The text outside fenced code blocks, and outside inline code spans when asked. */
    private static String prose(String markdown, boolean dropInlineCode) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (!fenced) {
                out.append(dropInlineCode ? line.replaceAll("`[^`]*`", "``") : line.replace("`", ""))
                        .append('\n');
            }
        }
        return out.toString();
    }

    /** The groovy blocks of a page, or the whole of a Jenkinsfile. */
    private static List<String> groovy(Path source) throws IOException {
        String text = read(source);
        if (!source.toString().endsWith(".md")) {
            return List.of(text);
        }
        List<String> blocks = new ArrayList<>();
        Matcher m =
                Pattern.compile("(?ms)^\\s*```groovy\\s*$(.*?)^\\s*```\\s*$").matcher(text);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        return blocks;
    }

    /** Each {@code gpuSanitize} statement, string literals and comments blanked, up to its end. */
    static List<String> gpuSanitizeCalls(String groovy) {
        String code = Pattern.compile(
                        "(?s)'''.*?'''|\"\"\".*?\"\"\"|'(?:\\\\.|[^'\\\\\\n])*'|\"(?:\\\\.|[^\"\\\\\\n])*\"|//[^\\n]*")
                .matcher(groovy)
                .replaceAll(r -> r.group().startsWith("//") ? "" : "''");
        List<String> calls = new ArrayList<>();
        Matcher m = Pattern.compile("\\bgpuSanitize\\b(?=\\s|\\()").matcher(code);
        while (m.find()) {
            int depth = 0;
            int end = m.start();
            char last = ' ';
            for (; end < code.length(); end++) {
                char c = code.charAt(end);
                if (c == '(' || c == '[') {
                    depth++;
                } else if (c == ')' || c == ']') {
                    depth--;
                } else if (depth <= 0 && (c == '}' || c == '\n' && last != ',')) {
                    break;
                }
                if (!Character.isWhitespace(c)) {
                    last = c;
                }
            }
            calls.add(code.substring(m.start(), end));
        }
        return calls;
    }

    /** (the call that takes it, the parameter) for each {@code name:} of a statement. */
    static List<String[]> namedArguments(String call) {
        List<String[]> arguments = new ArrayList<>();
        Deque<String> calls = new ArrayDeque<>(List.of("gpuSanitize"));
        Matcher m = Pattern.compile("([A-Za-z_]\\w*)\\s*(\\(|:)|\\)").matcher(call);
        while (m.find()) {
            if (m.group().equals(")")) {
                if (calls.size() > 1) {
                    calls.pop();
                }
            } else if (m.group(2).equals("(")) {
                calls.push(m.group(1));
            } else {
                arguments.add(new String[] {calls.peek(), m.group(1)});
            }
        }
        return arguments;
    }

    /** Its {@code @DataBoundSetter}s (deprecated ones too: old snippets keep working) and its constructor's one. */
    private static Set<String> parameters(Class<?> type, String constructorParameter) {
        Set<String> parameters = new TreeSet<>();
        if (constructorParameter != null) {
            parameters.add(constructorParameter);
        }
        for (Method method : type.getMethods()) {
            if (method.isAnnotationPresent(DataBoundSetter.class)) {
                String name = method.getName().substring(3);
                parameters.add(Character.toLowerCase(name.charAt(0)) + name.substring(1));
            }
        }
        return parameters;
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8).replace("\r\n", "\n");
    }
}

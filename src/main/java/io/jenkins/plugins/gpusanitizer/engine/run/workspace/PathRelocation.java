package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Paths that name the tree, moved to the same place in a run's copy: in the job's variables, in its command line
 * ({@code --output_dir ${WORKSPACE}/outputs}) and in the copy's symbolic links. Both spellings of the tree count (the
 * logical {@code $WORKSPACE} through a symbolic link, and the real path). The run directory and the shared paths stay
 * where they are. A path in a file the job reads (a config file) is not rewritten: the write-back reports what
 * changed in the working directory meanwhile.
 */
final class PathRelocation {
    /** A character a path may hold in a command line; a path ends at any other ({@code --out=PATH} too). */
    private static final String PATH_CHARS = "[^\\s'\"`:;,()<>|&=]";

    private final WorkTree tree;
    private final Set<Path> ignored;
    private final Pattern inText;

    PathRelocation(WorkTree tree, Set<Path> ignored) {
        this.tree = tree;
        this.ignored = Set.copyOf(ignored);
        StringBuilder either = new StringBuilder();
        for (Path s : tree.spellings()) {
            either.append(either.length() == 0 ? "" : "|").append(Pattern.quote(s.toString()));
        }
        this.inText = Pattern.compile("(?<!" + PATH_CHARS + ")(?:" + either + ")(?:/" + PATH_CHARS + "*)?");
    }

    /** A variable's value: a path, or a list of them (PYTHONPATH), each moved when it names the tree. */
    String inValue(String value, Path copy) {
        String[] parts = value.split(File.pathSeparator, -1);
        boolean changed = false;
        for (int i = 0; i < parts.length; i++) {
            String moved = inPath(parts[i], copy);
            changed |= !moved.equals(parts[i]);
            parts[i] = moved;
        }
        return changed ? String.join(File.pathSeparator, parts) : value;
    }

    /** A command line's word or a shell command: each path in it that names the tree, moved. */
    String inText(String text, Path copy) {
        Matcher m = inText.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            // the tree's own name, not a longer one (job@tmp, ws2)
            boolean whole = m.end() == text.length()
                    || !String.valueOf(text.charAt(m.end())).matches(PATH_CHARS);
            m.appendReplacement(out, Matcher.quoteReplacement(whole ? inPath(m.group(), copy) : m.group()));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** One path: the same place in the copy when it names the tree (and not what the copies leave out). */
    String inPath(String part, Path copy) {
        for (Path spelling : tree.spellings()) {
            String base = spelling.toString();
            String rest;
            if (part.equals(base) || part.equals(base + "/")) {
                rest = "";
            } else if (part.startsWith(base + "/")) {
                rest = part.substring(base.length() + 1);
            } else {
                continue;
            }
            Path inside = tree.real().resolve(rest).normalize();
            if (!inside.startsWith(tree.real()) || ignored.stream().anyMatch(inside::startsWith)) {
                return part;
            }
            String moved =
                    copy.resolve(tree.real().relativize(inside).toString()).toString();
            return part.endsWith("/") && !moved.endsWith("/") ? moved + "/" : moved;
        }
        return part;
    }

    /**
     * The copy's symbolic links lead where the original's did: an absolute link into the tree to the same place in
     * the copy (not through to the original), a relative link out of the tree ({@code data -> ../datasets}) to its
     * absolute target (the copy lies elsewhere).
     */
    void relocateLinks(WorkspaceSnapshot source, Path copy) throws IOException {
        for (Map.Entry<String, WorkspaceSnapshot.PathState> e : source.entries().entrySet()) {
            if (e.getValue().type() != WorkspaceSnapshot.Type.LINK) {
                continue;
            }
            String target = e.getValue().link();
            Path link = Path.of(target);
            String moved;
            if (link.isAbsolute()) {
                moved = inPath(link.normalize().toString(), copy);
            } else {
                Path from = tree.real().resolve(e.getKey()).getParent();
                if (from == null) {
                    continue; // an entry below the tree always has a folder
                }
                Path resolved = from.resolve(link).normalize();
                moved = resolved.startsWith(tree.real()) ? target : resolved.toString();
            }
            Path inCopy = copy.resolve(e.getKey());
            if (!moved.equals(target) && Files.isSymbolicLink(inCopy)) {
                Files.delete(inCopy);
                Files.createSymbolicLink(inCopy, Path.of(moved));
            }
        }
    }
}

package io.jenkins.plugins.gpusanitizer.engine.run.workspace;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Which paths in a run's command line and variables are moved into its copy (issue #47): the tree's, in either
 * spelling ({@code $WORKSPACE} through a symbolic link, the real path); not a longer name that begins the same
 * ({@code job@tmp}, {@code job2}), not the run directory inside the tree, not what lies outside.
 */
class PathRelocationTest {
    @TempDir
    Path dir;

    private PathRelocation relocation;
    private Path copy;

    @BeforeEach
    void tree() throws IOException {
        Path real = Files.createDirectories(dir.resolve("data/jenkins/workspace/job"));
        Files.createDirectories(real.resolve("gpu-sanitize-run"));
        Files.createSymbolicLink(dir.resolve("var-lib-jenkins"), dir.resolve("data/jenkins"));
        Path logical = dir.resolve("var-lib-jenkins/workspace/job");
        WorkTree tree = WorkTree.of(logical, logical.toString());
        relocation = new PathRelocation(tree, Set.of(real.toRealPath().resolve("gpu-sanitize-run")));
        copy = dir.resolve("copies/regression");
    }

    private String expand(String text) {
        return text.replace(
                        "LOGICAL", dir.resolve("var-lib-jenkins/workspace/job").toString())
                .replace("REAL", dir.resolve("data/jenkins/workspace/job").toString())
                .replace("COPY", copy.toString());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "python run_clm.py --output_dir LOGICAL/outputs --overwrite_output_dir"
                        + "|python run_clm.py --output_dir COPY/outputs --overwrite_output_dir",
                "python train.py --out=REAL/runs/x|python train.py --out=COPY/runs/x",
                "cd LOGICAL && python train.py|cd COPY && python train.py",
                "python t.py --cfg 'LOGICAL/conf/a.yaml'|python t.py --cfg 'COPY/conf/a.yaml'",
                "python t.py --tmp LOGICAL@tmp/x --other LOGICAL2/y|python t.py --tmp LOGICAL@tmp/x --other LOGICAL2/y",
                "python t.py --log REAL/gpu-sanitize-run/a.log|python t.py --log REAL/gpu-sanitize-run/a.log",
                "python t.py --data LOGICAL/../datasets|python t.py --data LOGICAL/../datasets",
                "python /opt/LOGICAL/t.py|python /opt/LOGICAL/t.py",
            })
    void aCommandLineNamesTheRunsCopyWhereItNamedTheTree(String given, String expected) {
        assertThat(relocation.inText(expand(given), copy)).isEqualTo(expand(expected));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                "LOGICAL|COPY",
                "REAL/|COPY/",
                "LOGICAL/src:/usr/lib/python3:REAL/vendor|COPY/src:/usr/lib/python3:COPY/vendor",
                "LOGICAL@tmp|LOGICAL@tmp",
            })
    void aVariableNamesTheRunsCopyWhereItNamedTheTree(String given, String expected) {
        assertThat(relocation.inValue(expand(given), copy)).isEqualTo(expand(expected));
    }
}

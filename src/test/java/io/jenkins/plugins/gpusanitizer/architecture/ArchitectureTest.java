package io.jenkins.plugins.gpusanitizer.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** engine and cli stay Jenkins-free, so they build from Maven Central and run on agents and in the CLI. */
class ArchitectureTest {
    private static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.jenkins.plugins.gpusanitizer");

    @Test
    void engineAndCliDoNotUseJenkins() {
        noClasses()
                .that()
                .resideInAnyPackage("..gpusanitizer.engine..", "..gpusanitizer.cli..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("hudson..", "jenkins..", "org.kohsuke..", "org.jenkinsci..")
                .check(CLASSES);
    }

    @Test
    void engineDoesNotUseTheCli() {
        noClasses()
                .that()
                .resideInAPackage("..gpusanitizer.engine..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("..gpusanitizer.cli..", "picocli..")
                .check(CLASSES);
    }
}

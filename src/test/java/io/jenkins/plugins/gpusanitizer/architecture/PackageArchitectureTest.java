package io.jenkins.plugins.gpusanitizer.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static com.tngtech.archunit.library.plantuml.rules.PlantUmlArchCondition.Configuration.consideringOnlyDependenciesInDiagram;
import static com.tngtech.archunit.library.plantuml.rules.PlantUmlArchCondition.adhereToPlantUmlDiagram;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.jenkins.plugins.gpusanitizer.RootBuild;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import jenkins.model.Jenkins;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.kohsuke.stapler.verb.POST;

/**
 * The shape of the whole plugin (issue #16), after warnings-ng's PackageArchitectureTest and
 * PluginArchitectureTest: the package diagram of {@code design.puml}, the direction steps → results →
 * engine, Jenkins APIs only in steps and results, and how web methods are written; inside the engine, the
 * pipeline stages one way (model ← parse ← findings, probe ← diagnosis ← gate ← analysis ← report ← run) and
 * without cycles (issue #27: the analysis once read the runner's file names, and the runner ran the analysis).
 *
 * <p>In the standalone build the Jenkins layer is compiled into test-classes (against the API stubs),
 * so the import takes every class whose source is under src/main/java, wherever it was compiled to.
 */
@AnalyzeClasses(
        packages = PackageArchitectureTest.ROOT_PACKAGE,
        importOptions = PackageArchitectureTest.MainSources.class)
class PackageArchitectureTest {
    static final String ROOT_PACKAGE = "io.jenkins.plugins.gpusanitizer";
    static final Path MAIN_SOURCES = Path.of(System.getProperty("gs.projectRoot", "."), "src/main/java");

    /** The plugin's own classes: those with a source under src/main/java (tests and test helpers left out). */
    static final class MainSources implements ImportOption {
        @Override
        public boolean includes(Location location) {
            String uri = location.asURI().toString();
            int start = uri.indexOf(ROOT_PACKAGE.replace('.', '/') + "/");
            if (start < 0 || !uri.endsWith(".class")) {
                return false;
            }
            String topLevel =
                    uri.substring(start, uri.length() - ".class".length()).replaceAll("\\$.*", "");
            return Files.isRegularFile(MAIN_SOURCES.resolve(topLevel + ".java"))
                    // stands in for the class localizer generates from steps/Messages.properties
                    || topLevel.endsWith("/steps/Messages");
        }
    }

    static final JavaClasses CLASSES =
            new ClassFileImporter().withImportOption(new MainSources()).importPackages(ROOT_PACKAGE);

    @ArchTest
    static final ArchRule DESIGN_DIAGRAM = classes()
            .should(adhereToPlantUmlDiagram(diagram(), consideringOnlyDependenciesInDiagram()))
            .as("the packages depend on each other as architecture/design.puml draws them");

    @ArchTest
    static final ArchRule LAYERS = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("steps")
            .definedBy("..gpusanitizer.steps..")
            .layer("results")
            .definedBy("..gpusanitizer.results..")
            .layer("engine")
            .definedBy("..gpusanitizer.engine..")
            // the plugin build (root pom.xml) leaves cli/ out; the standalone build compiles it
            .optionalLayer("cli")
            .definedBy("..gpusanitizer.cli..")
            .whereLayer("steps")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("results")
            .mayOnlyBeAccessedByLayers("steps")
            .whereLayer("engine")
            .mayOnlyBeAccessedByLayers("steps", "results", "cli")
            .whereLayer("cli")
            .mayNotBeAccessedByAnyLayer();

    @ArchTest
    static final ArchRule JENKINS_ONLY_IN_STEPS_AND_RESULTS = noClasses()
            .that()
            .resideOutsideOfPackages("..gpusanitizer.steps..", "..gpusanitizer.results..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "hudson..", "jenkins..", "org.kohsuke..", "org.jenkinsci..", "io.jenkins.plugins.checks..")
            .as("only steps and results use Jenkins, Stapler and Pipeline APIs");

    @ArchTest
    static final ArchRule NO_JENKINS_GET_OUTSIDE_STEPS_AND_RESULTS = noClasses()
            .that()
            .resideOutsideOfPackages("..gpusanitizer.steps..", "..gpusanitizer.results..")
            .should()
            .callMethod(Jenkins.class, "get")
            .as("Jenkins.get() only in steps and results");

    @ArchTest
    static final ArchRule WEB_METHODS_ARE_POST_AND_CHECK_A_PERMISSION = methods()
            .that()
            .arePublic()
            .and()
            .haveNameMatching("do(Check|Fill).+")
            .should()
            .beAnnotatedWith(POST.class)
            .andShould(checkAPermission())
            .as("every public doCheck…/doFill… is @POST and checks a permission");

    @ArchTest
    static final ArchRule NO_PUBLISHER_THAT_IS_NOT_ONE = classes()
            .that()
            .haveSimpleNameEndingWith("Publisher")
            .should()
            .beAssignableTo("hudson.tasks.Publisher")
            .allowEmptyShould(true)
            .as("a class named …Publisher is a hudson.tasks.Publisher");

    /** The engine's stages, bottom up: each uses only those below it. */
    @ArchTest
    static final ArchRule ENGINE_LAYERS = layeredArchitecture()
            .consideringOnlyDependenciesInLayers()
            .layer("model")
            .definedBy("..gpusanitizer.engine.model..")
            .layer("parse")
            .definedBy("..gpusanitizer.engine.parse..")
            .layer("findings")
            .definedBy("..gpusanitizer.engine.findings..")
            .layer("probe")
            .definedBy("..gpusanitizer.engine.probe..")
            .layer("diagnosis")
            .definedBy("..gpusanitizer.engine.diagnosis..")
            .layer("gate")
            .definedBy("..gpusanitizer.engine.gate..")
            .layer("analysis")
            .definedBy("..gpusanitizer.engine.analysis..")
            .layer("report")
            .definedBy("..gpusanitizer.engine.report..")
            .layer("run")
            .definedBy("..gpusanitizer.engine.run..")
            .whereLayer("run")
            .mayNotBeAccessedByAnyLayer()
            .whereLayer("report")
            .mayOnlyBeAccessedByLayers("run")
            .whereLayer("analysis")
            .mayOnlyBeAccessedByLayers("report", "run")
            .whereLayer("gate")
            .mayOnlyBeAccessedByLayers("analysis", "report", "run")
            .whereLayer("diagnosis")
            .mayOnlyBeAccessedByLayers("gate", "analysis", "report", "run")
            .whereLayer("findings")
            .mayOnlyBeAccessedByLayers("diagnosis", "gate", "analysis", "report", "run")
            .whereLayer("probe")
            .mayOnlyBeAccessedByLayers("diagnosis", "gate", "analysis", "report", "run")
            .whereLayer("parse")
            .mayOnlyBeAccessedByLayers("findings", "probe", "diagnosis", "gate", "analysis", "report", "run")
            .as("the engine's stages point down: model ← parse ← findings, probe ← diagnosis ← gate ← analysis ← "
                    + "report ← run");

    /** A finished run is read through model.RunLayout: the runner (processes, locks, its directory) stays on top. */
    @ArchTest
    static final ArchRule NOTHING_IN_THE_ENGINE_USES_THE_RUNNER = noClasses()
            .that()
            .resideInAPackage("..gpusanitizer.engine..")
            .and()
            .resideOutsideOfPackage("..gpusanitizer.engine.run..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("..gpusanitizer.engine.run..")
            .as("the analysis, the report and the stages below them never use the runner");

    @ArchTest
    static final ArchRule ENGINE_STAGES_FREE_OF_CYCLES = slices().matching("..gpusanitizer.engine.(*)..")
            .should()
            .beFreeOfCycles()
            .as("no cycle between the engine's packages");

    /** parse/ holds what every format shares; text/, xml/, job/, memory/ each read one kind of output. */
    @ArchTest
    static final ArchRule PARSE_FORMATS_FREE_OF_CYCLES = slices().matching("..gpusanitizer.engine.parse.(*)..")
            .should()
            .beFreeOfCycles()
            .as("no cycle between the parsers' packages");

    @ArchTest
    static final ArchRule PARSE_SHARED_PART_USES_NO_FORMAT = noClasses()
            .that()
            .resideInAPackage("..gpusanitizer.engine.parse")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("..gpusanitizer.engine.parse.*..")
            .as("what the parsers share (engine.parse) uses none of them");

    /** process/, environment/, lock/: the runner's parts, below the phases and the scheduler of run/. */
    @ArchTest
    static final ArchRule RUNNER_PARTS_FREE_OF_CYCLES = slices().matching("..gpusanitizer.engine.run.(*)..")
            .should()
            .beFreeOfCycles()
            .as("no cycle between the runner's parts");

    private static URL diagram() {
        URL url = PackageArchitectureTest.class.getResource("/architecture/design.puml");
        if (url == null) {
            throw new IllegalStateException("architecture/design.puml is not on the test classpath");
        }
        return url;
    }

    /** Calls hasPermission or checkPermission, itself or through the plugin's own helpers (three calls deep). */
    static ArchCondition<JavaMethod> checkAPermission() {
        return new ArchCondition<>("call hasPermission or checkPermission (directly or through a helper)") {
            @Override
            public void check(JavaMethod method, ConditionEvents events) {
                boolean checks = checksPermission(method, 3, new HashSet<>());
                events.add(new SimpleConditionEvent(
                        method,
                        checks,
                        method.getFullName() + (checks ? " checks" : " does not check") + " a permission"));
            }
        };
    }

    private static boolean checksPermission(JavaMethod method, int depth, Set<JavaMethod> seen) {
        if (depth == 0 || !seen.add(method)) {
            return false;
        }
        for (JavaMethodCall call : method.getMethodCallsFromSelf()) {
            String name = call.getTarget().getName();
            if (name.equals("hasPermission") || name.equals("checkPermission")) {
                return true;
            }
            if (call.getTargetOwner().getPackageName().startsWith(ROOT_PACKAGE)
                    && call.getTarget()
                            .resolveMember()
                            .map(target -> checksPermission(target, depth - 1, seen))
                            .orElse(false)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The rules below see the Jenkins layer and its web methods, not only the Jenkins-free packages: a
     * class for every source file the plugin build compiles (src/main/java less the root pom's excludes),
     * and cli's only where this build compiled it.
     */
    @Test
    void theImportHoldsTheWholePluginAndNoTests() throws Exception {
        Set<String> names = new HashSet<>();
        for (JavaClass javaClass : CLASSES) {
            names.add(javaClass.getName());
        }
        Set<String> expected = new HashSet<>(RootBuild.mainClassNames(RootBuild.mainSources()));
        if (compiledHere(ROOT_PACKAGE + ".cli.GpuSanitizeCli")) {
            expected.add(ROOT_PACKAGE + ".cli.GpuSanitizeCli");
        }
        assertThat(names)
                .contains(
                        ROOT_PACKAGE + ".steps.GpuSanitizeStep",
                        ROOT_PACKAGE + ".steps.GpuSanitizeStep$DescriptorImpl",
                        ROOT_PACKAGE + ".results.GpuSanitizeReporter",
                        ROOT_PACKAGE + ".engine.run.RunSpec")
                .containsAll(expected);
        assertThat(names).noneMatch(name -> name.endsWith("Test"));
    }

    private static boolean compiledHere(String className) {
        try {
            Class.forName(className, false, PackageArchitectureTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The plugin build's classes, compiled on their own by the standalone build (RootBuild): no cli
     * layer, every class of the set there, and the same rules hold.
     */
    @Test
    @EnabledIfSystemProperty(named = RootBuild.DIR_PROPERTY, matches = ".+")
    void theRulesHoldForThePluginBuildsClasses() throws Exception {
        RootBuild.Compiled compiled = RootBuild.compiled();
        assertThat(compiled.mainCompile().ok())
                .as(compiled.mainCompile().messages())
                .isTrue();
        JavaClasses rootSet =
                new ClassFileImporter().withImportOption(new MainSources()).importPath(compiled.main());
        Set<String> names = new HashSet<>();
        rootSet.forEach(javaClass -> names.add(javaClass.getName()));
        assertThat(names)
                .containsAll(RootBuild.mainClassNames(RootBuild.mainSources()))
                .noneMatch(name -> name.startsWith(ROOT_PACKAGE + ".cli."));
        for (ArchRule rule : List.of(
                DESIGN_DIAGRAM,
                LAYERS,
                JENKINS_ONLY_IN_STEPS_AND_RESULTS,
                NO_JENKINS_GET_OUTSIDE_STEPS_AND_RESULTS,
                WEB_METHODS_ARE_POST_AND_CHECK_A_PERMISSION,
                NO_PUBLISHER_THAT_IS_NOT_ONE,
                ENGINE_LAYERS,
                NOTHING_IN_THE_ENGINE_USES_THE_RUNNER,
                ENGINE_STAGES_FREE_OF_CYCLES,
                PARSE_FORMATS_FREE_OF_CYCLES,
                PARSE_SHARED_PART_USES_NO_FORMAT,
                RUNNER_PARTS_FREE_OF_CYCLES)) {
            rule.check(rootSet);
        }
    }
}

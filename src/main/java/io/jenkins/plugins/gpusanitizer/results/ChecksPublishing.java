package io.jenkins.plugins.gpusanitizer.results;

import hudson.model.Run;
import hudson.model.TaskListener;
import io.jenkins.plugins.checks.api.ChecksAnnotation;
import io.jenkins.plugins.checks.api.ChecksConclusion;
import io.jenkins.plugins.checks.api.ChecksDetails;
import io.jenkins.plugins.checks.api.ChecksOutput;
import io.jenkins.plugins.checks.api.ChecksPublisher;
import io.jenkins.plugins.checks.api.ChecksPublisherFactory;
import io.jenkins.plugins.checks.api.ChecksStatus;
import io.jenkins.plugins.gpusanitizer.engine.report.CheckRun;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import java.util.List;

/** Publishes one check per step id through the Checks API, best effort: a failure to publish never fails the build. */
final class ChecksPublishing {
    private ChecksPublishing() {}

    static void publish(Run<?, ?> run, TaskListener listener, Report report, String name) {
        try {
            // the publisher first: the compile-only API stub's fromRun always throws, and what is built before it
            // would read to SpotBugs as dead stores (the real build has no such finding either way)
            ChecksPublisher publisher = ChecksPublisherFactory.fromRun(run, listener);
            CheckRun check = CheckRun.of(report, name);
            List<ChecksAnnotation> annotations = check.annotations().stream()
                    .map(annotation -> new ChecksAnnotation.ChecksAnnotationBuilder()
                            .withPath(annotation.path())
                            .withStartLine(annotation.line())
                            .withEndLine(annotation.line())
                            .withAnnotationLevel(
                                    "failure".equals(annotation.level())
                                            ? ChecksAnnotation.ChecksAnnotationLevel.FAILURE
                                            : ChecksAnnotation.ChecksAnnotationLevel.WARNING)
                            .withTitle(annotation.title())
                            .withMessage(annotation.message())
                            .build())
                    .toList();
            ChecksDetails details = new ChecksDetails.ChecksDetailsBuilder()
                    .withName(check.name())
                    .withStatus(ChecksStatus.COMPLETED)
                    .withConclusion(conclusion(check.conclusion()))
                    .withOutput(new ChecksOutput.ChecksOutputBuilder()
                            .withTitle(check.title())
                            .withSummary(check.summary())
                            .withAnnotations(annotations)
                            .build())
                    .build();
            publisher.publish(details);
        } catch (RuntimeException | LinkageError e) {
            listener.getLogger()
                    .println("[gpu-sanitize] could not publish the check (the build is not affected): " + e);
        }
    }

    // a method, not a switch expression inside the builder chain: javac's synthetic local for it reads as a dead
    // store to SpotBugs (DLS_DEAD_LOCAL_STORE)
    private static ChecksConclusion conclusion(String conclusion) {
        return switch (conclusion) {
            case "success" -> ChecksConclusion.SUCCESS;
            case "neutral" -> ChecksConclusion.NEUTRAL;
            default -> ChecksConclusion.FAILURE;
        };
    }
}

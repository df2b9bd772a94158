package org.kohsuke.stapler;

// Compile-only signature stub of org.kohsuke.stapler.HttpResponse: jenkinsci/stapler, commit 135bbbc (2026-08-20;
// jenkins-core 2.555.3 bundles 2076.v1b_a_c12445eb_e),
// core/src/main/java/org/kohsuke/stapler/HttpResponse.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public interface HttpResponse {
    // generateResponse(StaplerRequest2, StaplerResponse2, Object) is a default method: left out
}

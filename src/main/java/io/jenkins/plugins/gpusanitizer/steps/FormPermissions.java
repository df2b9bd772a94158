package io.jenkins.plugins.gpusanitizer.steps;

import edu.umd.cs.findbugs.annotations.CheckForNull;
import hudson.model.Item;
import jenkins.model.Jenkins;

/**
 * Who may use the forms' web methods ({@code doCheck…}, {@code doFill…}): users who may configure the
 * job, or administrators outside a job. What they reveal is not secret, but they run code on the
 * controller for every keystroke (PackageArchitectureTest holds every web method to it).
 */
final class FormPermissions {
    private FormPermissions() {}

    static boolean canConfigure(@CheckForNull Item item) {
        if (item == null) {
            return Jenkins.get().hasPermission(Jenkins.ADMINISTER);
        }
        return item.hasPermission(Item.CONFIGURE);
    }
}

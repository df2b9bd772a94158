package hudson.model;

// Compile-only signature stub of hudson.model.Item: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/Item.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the permission constants are null (core creates them with their group). Never packaged (see
// ../README.md).

import hudson.security.AccessControlled;
import hudson.security.Permission;

public interface Item extends AccessControlled {
    Permission CONFIGURE = null; // core: new Permission(PERMISSIONS, "Configure", ...)

    Permission READ = null; // core: new Permission(PERMISSIONS, "Read", ...)

    Permission DISCOVER = null; // core: new Permission(PERMISSIONS, "Discover", ...)

    ItemGroup<? extends Item> getParent();

    String getFullName();

    String getDisplayName();

    String getUrl();
}

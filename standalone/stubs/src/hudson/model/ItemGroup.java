package hudson.model;

// Compile-only signature stub of hudson.model.ItemGroup: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/model/ItemGroup.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import java.util.Collection;
import org.springframework.security.access.AccessDeniedException;

public interface ItemGroup<T extends Item> extends ModelObject {
    Collection<T> getItems();

    String getUrl();

    @CheckForNull
    T getItem(String name) throws AccessDeniedException;
}

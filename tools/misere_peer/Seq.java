// Stands in for the Scala collection a ruleset's heapOptions returns: only
// toSeq(), which CollectionConverters turns into a java.util.List.
package scala.collection;

import java.util.List;

public final class Seq<T> {
    final List<T> items;

    public Seq(List<T> items) { this.items = items; }

    public Seq<T> toSeq() { return this; }

    public List<T> asJavaList() { return items; }
}

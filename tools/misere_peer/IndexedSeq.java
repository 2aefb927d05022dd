// Stands in for Scala's immutable IndexedSeq where MisereSolver reads an
// option: its length and its entries, nothing else.
package scala.collection.immutable;

import java.util.List;

public final class IndexedSeq<T> {
    private final List<T> items;

    public IndexedSeq(List<T> items) { this.items = items; }

    public int length() { return items.size(); }

    public T apply(int i) { return items.get(i); }
}

// The part of CGSuite's HeapRuleset that MisereSolver uses: the options of
// a heap, each the list of the non-empty heaps a move leaves.
package org.cgsuite.core.impartial;

import java.util.List;
import scala.collection.Seq;
import scala.collection.immutable.IndexedSeq;

public interface HeapRuleset {
    Seq<IndexedSeq<org.cgsuite.core.Integer>> heapOptions(org.cgsuite.core.Integer heap);

    List<int[]> allOptions(int heap);
}

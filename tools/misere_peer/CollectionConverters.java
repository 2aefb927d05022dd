// Stands in for scala.jdk.CollectionConverters: SeqHasAsJava(seq).asJava().
package scala.jdk;

import java.util.List;
import scala.collection.Seq;

public final class CollectionConverters {
    private CollectionConverters() {}

    public static final class AsJava<T> {
        private final Seq<T> seq;

        AsJava(Seq<T> seq) { this.seq = seq; }

        public List<T> asJava() { return seq.asJavaList(); }
    }

    public static <T> AsJava<T> SeqHasAsJava(Seq<T> seq) { return new AsJava<>(seq); }
}

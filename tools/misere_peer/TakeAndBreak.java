// An octal (or hexadecimal) game for MisereSolver, written for this bench
// from the definition of the codes (Winning Ways, ch. 4; Conway, On
// Numbers and Games, ch. 11), not from CGSuite: digit d_k of code
// d_0.d_1d_2... says what a move that takes k tokens may leave: bit 1
// nothing, bit 2 one non-empty heap, bit 4 two, bit 8 three.
package org.cgsuite.core.impartial;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import scala.collection.Seq;
import scala.collection.immutable.IndexedSeq;

public final class TakeAndBreak implements HeapRuleset {
    private final String code;
    private final int[] digits;  // digits[k]: what taking k tokens may leave

    private TakeAndBreak(String code) {
        this.code = code;
        String[] parts = code.split("\\.", -1);
        if (parts.length != 2 || parts[0].length() > 1) throw new IllegalArgumentException("not a code: " + code);
        String all = (parts[0].isEmpty() ? "0" : parts[0]) + parts[1];
        digits = new int[all.length()];
        for (int k = 0; k < all.length(); k++) digits[k] = Character.digit(all.charAt(k), 16);
        if (Arrays.stream(digits).anyMatch(d -> d < 0)) throw new IllegalArgumentException("not a code: " + code);
    }

    public static TakeAndBreak apply(String code) { return new TakeAndBreak(code); }

    public TBCode tbCode() { return TBCode.apply(code); }

    // Every way to leave `parts` non-empty heaps summing to `left`, in
    // non-decreasing order, each at least `from`.
    private static void splits(int left, int parts, int from, List<Integer> prefix, List<int[]> out) {
        if (parts == 0) {
            if (left == 0) out.add(prefix.stream().mapToInt(Integer::intValue).toArray());
            return;
        }
        for (int h = from; h * parts <= left; h++) {
            prefix.add(h);
            splits(left - h, parts - 1, h, prefix, out);
            prefix.remove(prefix.size() - 1);
        }
    }

    @Override
    public List<int[]> allOptions(int heap) {
        Map<String, int[]> options = new LinkedHashMap<>();
        for (int k = 0; k < digits.length && k <= heap; k++) {
            for (int parts = 0; parts <= 3; parts++) {
                if ((digits[k] & (1 << parts)) == 0 || (k == 0 && parts < 2)) continue;
                List<int[]> found = new ArrayList<>();
                splits(heap - k, parts, 1, new ArrayList<>(), found);
                for (int[] option : found) options.put(Arrays.toString(option), option);
            }
        }
        return new ArrayList<>(options.values());
    }

    @Override
    public Seq<IndexedSeq<org.cgsuite.core.Integer>> heapOptions(org.cgsuite.core.Integer heap) {
        List<IndexedSeq<org.cgsuite.core.Integer>> result = new ArrayList<>();
        for (int[] option : allOptions(heap.intValue())) {
            List<org.cgsuite.core.Integer> heaps = new ArrayList<>();
            for (int h : option) heaps.add(org.cgsuite.core.Integer.apply(h));
            result.add(new IndexedSeq<>(heaps));
        }
        return new Seq<>(result);
    }

    @Override
    public String toString() { return code; }
}

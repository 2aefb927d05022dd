// CGSuite's take-and-break code, as far as MsvLoader needs it (it is built
// and kept; the peer never loads .msv files).
package org.cgsuite.core.impartial;

public final class TBCode {
    private final String code;

    private TBCode(String code) { this.code = code; }

    public static TBCode apply(String code) { return new TBCode(code); }

    @Override
    public String toString() { return code; }
}

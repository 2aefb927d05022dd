// The one method of CGSuite's org.cgsuite.core.Integer that MisereSolver
// calls, and the factory it uses: a small non-negative heap size.
package org.cgsuite.core;

public final class Integer {
    private final int value;

    private Integer(int value) { this.value = value; }

    public static Integer apply(int value) { return new Integer(value); }

    public int intValue() { return value; }
}

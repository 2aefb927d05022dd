// The bench's driver, in MisereSolver's package (it reads the solver's
// package-private state): computes Q_h heap by heap for an octal code and
// prints "heap H order N" as each heap is done, until --max-heap, the
// seconds run out (the solver is interrupted, as CGSuite's --timeout does),
// or a quotient grows past the solver's limit.
//
//   java -cp CLASSES org.cgsuite.core.misere.solver.PeerMain CODE MAX_HEAP [SECONDS]
package org.cgsuite.core.misere.solver;

import org.cgsuite.core.impartial.TakeAndBreak;

class TimeoutException extends RuntimeException {}

public final class PeerMain {
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: PeerMain CODE MAX_HEAP [SECONDS]");
            System.exit(2);
        }
        MisereSolver solver = new MisereSolver(TakeAndBreak.apply(args[0]));
        int maxHeap = Integer.parseInt(args[1]);
        long seconds = args.length > 2 ? Long.parseLong(args[2]) : 0;
        Thread main = Thread.currentThread();
        if (seconds > 0) {
            Thread timer = new Thread(() -> {
                try {
                    Thread.sleep(seconds * 1000);
                    main.interrupt();
                } catch (InterruptedException done) {
                }
            });
            timer.setDaemon(true);
            timer.start();
        }
        try {
            while (solver.p.prefn.size() <= maxHeap) {
                solver.next();
                System.out.println("heap " + (solver.p.prefn.size() - 1) + " order "
                                   + solver.p.quotient.monoid.size());
                System.out.flush();
            }
        } catch (TimeoutException stopped) {
            System.out.println("stopped: the time ran out");
        } catch (LargeQuotientException large) {
            System.out.println("stopped: a quotient of " + large.size + " elements");
        }
    }
}

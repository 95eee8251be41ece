// Generates tests/data/timsort_vectors.jsonl: reference outputs of Java 17's
// Arrays.sort(Object[]) (ComparableTimSort, the algorithm behind
// Collections.sort) for an element type whose compareTo is the overflowing
// `this.v - o.v`, like RocketMQ's MessageQueue.compareTo on queueId.
//
// Regenerate (from the repository root; needs JDK 17):
//   javac -d /tmp/tsv tests/java/TimSortVectors.java
//   java -cp /tmp/tsv TimSortVectors > tests/data/timsort_vectors.jsonl
//
// Each line is one JSON object:
//   name, kind     - identification of the vector
//   input          - the int values, in their original order
//   output, order  - the sorted values and the original index of each slot
//                    (present when the sort returned normally)
//   error          - exception message, with exception (class name),
//                    thrown_in (ComparableTimSort method), and state/order:
//                    the array contents when the exception escaped
// The output is deterministic for the fixed SEED below.

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

public final class TimSortVectors {
    private static final long SEED = 0x5EED_2024L;
    private static final Random RND = new Random(SEED);
    private static final StringBuilder OUT = new StringBuilder();

    /** Element with the contract-breaking comparison under test. */
    static final class Item implements Comparable<Item> {
        final int v;
        final int idx;

        Item(int v, int idx) {
            this.v = v;
            this.idx = idx;
        }

        @Override
        public int compareTo(Item o) {
            return this.v - o.v; // wraps around for far-apart values
        }
    }

    // ---- value generators ------------------------------------------------

    interface Gen {
        int[] make(int n);
    }

    static int small() {
        return RND.nextInt(101) - 50;
    }

    static int nearMin() {
        return Integer.MIN_VALUE + RND.nextInt(1000);
    }

    static int nearMax() {
        return Integer.MAX_VALUE - RND.nextInt(1000);
    }

    /** Small ints, near MIN_VALUE, near MAX_VALUE, and mid-range values. */
    static int mixedValue() {
        switch (RND.nextInt(5)) {
            case 0: return small();
            case 1: return nearMin();
            case 2: return nearMax();
            case 3: return RND.nextInt(1 << 30) - (1 << 29);
            default: return RND.nextInt();
        }
    }

    static int[] fill(int n, java.util.function.IntSupplier s) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = s.getAsInt();
        return a;
    }

    /** Concatenated ascending/descending runs of random lengths. */
    static int[] runs(int n, boolean consistent) {
        int[] a = new int[n];
        int i = 0;
        while (i < n) {
            int len = Math.min(n - i, 1 + RND.nextInt(RND.nextBoolean() ? 8 : 80));
            int[] run = new int[len];
            for (int k = 0; k < len; k++) {
                run[k] = consistent ? RND.nextInt(2001) - 1000 : mixedValue();
            }
            Arrays.sort(run); // numerically sorted (not in compareTo order)
            boolean desc = RND.nextInt(3) == 0;
            for (int k = 0; k < len; k++) a[i + k] = desc ? run[len - 1 - k] : run[k];
            i += len;
        }
        return a;
    }

    static final String[] KINDS = {
        "small", "wellbehaved", "wide", "mixed", "extremes", "runs", "runs_consistent", "few_big"
    };

    static int[] make(String kind, int n) {
        switch (kind) {
            case "small": return fill(n, TimSortVectors::small);
            case "wellbehaved": return fill(n, () -> RND.nextInt(2_000_001) - 1_000_000);
            case "wide": return fill(n, RND::nextInt);
            case "mixed": return fill(n, TimSortVectors::mixedValue);
            case "extremes":
                return fill(n, () -> {
                    int r = RND.nextInt(3);
                    return r == 0 ? small() : r == 1 ? nearMin() : nearMax();
                });
            case "runs": return runs(n, false);
            case "runs_consistent": return runs(n, true);
            case "few_big":
                // mostly small values with a sprinkling of huge ones
                return fill(n, () -> RND.nextInt(10) == 0
                        ? (RND.nextBoolean() ? nearMin() : nearMax()) : small());
            default: throw new IllegalArgumentException(kind);
        }
    }

    // ---- sorting and output ----------------------------------------------

    /** Sorts a copy of {@code input}; emits a JSON line; returns true on exception. */
    static boolean emit(String name, String kind, int[] input, boolean onlyIfThrows) {
        Object[] arr = new Object[input.length];
        for (int i = 0; i < input.length; i++) arr[i] = new Item(input[i], i);
        RuntimeException err = null;
        try {
            Arrays.sort(arr);
        } catch (RuntimeException e) {
            err = e;
        }
        if (onlyIfThrows && err == null) return false;

        int[] vals = new int[arr.length];
        int[] order = new int[arr.length];
        for (int i = 0; i < arr.length; i++) {
            vals[i] = ((Item) arr[i]).v;
            order[i] = ((Item) arr[i]).idx;
        }
        OUT.append("{\"name\":\"").append(name).append("\",\"kind\":\"").append(kind)
           .append("\",\"input\":").append(Arrays.toString(input).replace(" ", ""));
        if (err == null) {
            OUT.append(",\"output\":").append(Arrays.toString(vals).replace(" ", ""));
        } else {
            String where = "?";
            for (StackTraceElement el : err.getStackTrace()) {
                if (el.getClassName().endsWith("ComparableTimSort")) {
                    where = el.getMethodName();
                    break;
                }
            }
            OUT.append(",\"error\":\"").append(err.getMessage())
               .append("\",\"exception\":\"").append(err.getClass().getName())
               .append("\",\"thrown_in\":\"").append(where)
               .append("\",\"state\":").append(Arrays.toString(vals).replace(" ", ""));
        }
        OUT.append(",\"order\":").append(Arrays.toString(order).replace(" ", "")).append("}\n");
        return err != null;
    }

    public static void main(String[] args) {
        int serial = 0;

        // 1. Every size 0..70, cycling through the generators.
        for (int n = 0; n <= 70; n++) {
            String kind = KINDS[n % KINDS.length];
            emit("size" + n + "_" + (serial++), kind, make(kind, n), false);
        }

        // 2. Sizes around the MIN_MERGE / minRun / power-of-two boundaries.
        int[] edgeSizes = {31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129};
        String[] edgeKinds = {"mixed", "wide", "runs", "wellbehaved"};
        for (int n : edgeSizes) {
            for (String kind : edgeKinds) {
                emit("edge" + n + "_" + (serial++), kind, make(kind, n), false);
            }
        }

        // 3. Random sizes up to 300, every generator.
        for (int rep = 0; rep < 6; rep++) {
            for (String kind : KINDS) {
                int n = 130 + RND.nextInt(171);
                emit("rand" + n + "_" + (serial++), kind, make(kind, n), false);
            }
        }

        // 4. A few large arrays: long merges with galloping.
        String[] bigKinds = {"runs", "runs_consistent", "mixed", "few_big", "wellbehaved"};
        for (String kind : bigKinds) {
            int n = 1000 + RND.nextInt(1001);
            emit("big" + n + "_" + (serial++), kind, make(kind, n), false);
        }

        // 5. Search for inputs that make Java throw (the contract check).
        String[] advKinds = {"mixed", "wide", "extremes", "runs"};
        List<String> found = new ArrayList<>();
        int want = 24;
        for (int tries = 0; found.size() < want && tries < 200_000; tries++) {
            String kind = advKinds[tries % advKinds.length];
            int n = 32 + RND.nextInt(found.size() < want - 2 ? 200 : 1400);
            if (emit("throws" + n + "_" + serial, kind, make(kind, n), true)) {
                found.add(kind);
                serial++;
            }
        }

        System.out.print(OUT);
    }
}

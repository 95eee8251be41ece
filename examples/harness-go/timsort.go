// Java 17's ComparableTimSort (what Collections.sort runs), comparison for comparison.
//
// A Java client sorts mqAll with MessageQueue.compareTo, whose `this.queueId - o.queueId`
// overflows for ids far apart. Such a comparator breaks its contract, and then the order Java
// ends with depends on every comparison its sort makes; sometimes the sort even notices and
// throws IllegalArgumentException. Any other sort (Go's sort.SliceStable included) answers
// otherwise on those lists, so this file replays Java's algorithm step by step: binary
// insertion sort under 32 items; above that, natural runs extended to a minimum length, a
// stack of pending runs merged by the JDK 11+ invariants, and merges that gallop.
package main

import (
	"errors"
	"math"
)

// errContractViolation is Java's IllegalArgumentException from a merge that ran out of one run early.
var errContractViolation = errors.New("Comparison method violates its general contract!")

const (
	minMerge  = 32 // lists shorter than this get a plain binary insertion sort
	minGallop = 7  // initial threshold for entering galloping mode
)

// javaSort sorts a in place exactly as Java's ComparableTimSort would, compare(x, y) playing
// x.compareTo(y) (only its sign counts). Where Java throws, it returns errContractViolation
// and leaves a as partially merged as Java leaves its array.
func javaSort[T any](a []T, compare func(x, y T) int) error {
	n := len(a)
	if n < 2 {
		return nil
	}
	if n < minMerge {
		run := ascendingPrefix(a, 0, n, compare)
		binaryInsertionSort(a, 0, n, run, compare)
		return nil
	}
	ts := &timSort[T]{a: a, compare: compare, minGallop: minGallop}
	minRun := minRunLength(n)
	for lo, remaining := 0, n; remaining > 0; {
		run := ascendingPrefix(a, lo, lo+remaining, compare)
		if run < minRun {
			// Extend a short natural run to minRun items (or to the end).
			forced := remaining
			if minRun < forced {
				forced = minRun
			}
			binaryInsertionSort(a, lo, lo+forced, lo+run, compare)
			run = forced
		}
		ts.bases = append(ts.bases, lo)
		ts.lengths = append(ts.lengths, run)
		if err := ts.mergeCollapse(); err != nil {
			return err
		}
		lo += run
		remaining -= run
	}
	return ts.mergeForceCollapse()
}

// minRunLength keeps the top bits of n below 32, adding one if any bit shifted out was set.
func minRunLength(n int) int {
	extra := 0
	for n >= minMerge {
		extra |= n & 1
		n >>= 1
	}
	return n + extra
}

// ascendingPrefix is the length of the run starting at lo; a strictly descending run is
// reversed in place, so the run it measures is always ascending.
func ascendingPrefix[T any](a []T, lo, hi int, compare func(x, y T) int) int {
	end := lo + 1
	if end == hi {
		return 1
	}
	if compare(a[end], a[lo]) < 0 {
		end++
		for end < hi && compare(a[end], a[end-1]) < 0 {
			end++
		}
		for i, j := lo, end-1; i < j; i, j = i+1, j-1 {
			a[i], a[j] = a[j], a[i]
		}
	} else {
		end++
		for end < hi && compare(a[end], a[end-1]) >= 0 {
			end++
		}
	}
	return end - lo
}

// binaryInsertionSort sorts a[lo:hi] given a[lo:start] is sorted; an item goes after the
// items it equals (stable).
func binaryInsertionSort[T any](a []T, lo, hi, start int, compare func(x, y T) int) {
	if start == lo {
		start++
	}
	for i := start; i < hi; i++ {
		item := a[i]
		left, right := lo, i
		for left < right {
			mid := (left + right) >> 1
			if compare(item, a[mid]) < 0 {
				right = mid
			} else {
				left = mid + 1
			}
		}
		copy(a[left+1:i+1], a[left:i])
		a[left] = item
	}
}

// nextOffset is Java's `ofs = (ofs << 1) + 1`, clamped to limit where a Java int overflows.
func nextOffset(ofs, limit int) int {
	ofs = ofs<<1 + 1
	if ofs > math.MaxInt32 {
		return limit
	}
	return ofs
}

// gallopLeft is the leftmost place for key in the sorted a[base:base+length]: the k with
// a[base+k-1] < key <= a[base+k]. It probes from base+hint outwards in steps 1, 3, 7, ...,
// then binary-searches the last step.
func gallopLeft[T any](key T, a []T, base, length, hint int, compare func(x, y T) int) int {
	prev, ofs := 0, 1
	if compare(key, a[base+hint]) > 0 {
		// Probe to the right: a[base+hint+prev] < key <= a[base+hint+ofs].
		limit := length - hint
		for ofs < limit && compare(key, a[base+hint+ofs]) > 0 {
			prev = ofs
			ofs = nextOffset(ofs, limit)
		}
		if ofs > limit {
			ofs = limit
		}
		prev, ofs = prev+hint, ofs+hint
	} else {
		// Probe to the left: a[base+hint-ofs] < key <= a[base+hint-prev].
		limit := hint + 1
		for ofs < limit && compare(key, a[base+hint-ofs]) <= 0 {
			prev = ofs
			ofs = nextOffset(ofs, limit)
		}
		if ofs > limit {
			ofs = limit
		}
		prev, ofs = hint-ofs, hint-prev
	}
	// Now a[base+prev] < key <= a[base+ofs]: binary search in between.
	prev++
	for prev < ofs {
		mid := prev + (ofs-prev)>>1
		if compare(key, a[base+mid]) > 0 {
			prev = mid + 1
		} else {
			ofs = mid
		}
	}
	return ofs
}

// gallopRight is the rightmost place for key in the sorted a[base:base+length]: the k with
// a[base+k-1] <= key < a[base+k].
func gallopRight[T any](key T, a []T, base, length, hint int, compare func(x, y T) int) int {
	prev, ofs := 0, 1
	if compare(key, a[base+hint]) < 0 {
		// Probe to the left: a[base+hint-ofs] <= key < a[base+hint-prev].
		limit := hint + 1
		for ofs < limit && compare(key, a[base+hint-ofs]) < 0 {
			prev = ofs
			ofs = nextOffset(ofs, limit)
		}
		if ofs > limit {
			ofs = limit
		}
		prev, ofs = hint-ofs, hint-prev
	} else {
		// Probe to the right: a[base+hint+prev] <= key < a[base+hint+ofs].
		limit := length - hint
		for ofs < limit && compare(key, a[base+hint+ofs]) >= 0 {
			prev = ofs
			ofs = nextOffset(ofs, limit)
		}
		if ofs > limit {
			ofs = limit
		}
		prev, ofs = prev+hint, ofs+hint
	}
	// Now a[base+prev] <= key < a[base+ofs]: binary search in between.
	prev++
	for prev < ofs {
		mid := prev + (ofs-prev)>>1
		if compare(key, a[base+mid]) < 0 {
			ofs = mid
		} else {
			prev = mid + 1
		}
	}
	return ofs
}

// timSort is the state of one sort of a long list: the stack of pending runs (adjacent in a,
// left to right) and the gallop threshold, which adapts from merge to merge.
type timSort[T any] struct {
	a         []T
	compare   func(x, y T) int
	minGallop int
	bases     []int
	lengths   []int
}

// mergeCollapse merges pending runs until the run lengths shrink fast enough from the bottom
// of the stack up (the JDK 11+ check, which also looks at the fourth run from the top).
func (ts *timSort[T]) mergeCollapse() error {
	for len(ts.lengths) > 1 {
		lens := ts.lengths
		n := len(lens) - 2
		if (n > 0 && lens[n-1] <= lens[n]+lens[n+1]) || (n > 1 && lens[n-2] <= lens[n]+lens[n-1]) {
			if lens[n-1] < lens[n+1] {
				n--
			}
		} else if lens[n] > lens[n+1] {
			break
		}
		if err := ts.mergeAt(n); err != nil {
			return err
		}
	}
	return nil
}

// mergeForceCollapse merges every pending run, once the whole list has been split into runs.
func (ts *timSort[T]) mergeForceCollapse() error {
	for len(ts.lengths) > 1 {
		n := len(ts.lengths) - 2
		if n > 0 && ts.lengths[n-1] < ts.lengths[n+1] {
			n--
		}
		if err := ts.mergeAt(n); err != nil {
			return err
		}
	}
	return nil
}

// mergeAt merges the pending runs i and i+1 into one.
func (ts *timSort[T]) mergeAt(i int) error {
	a, compare := ts.a, ts.compare
	base1, len1 := ts.bases[i], ts.lengths[i]
	base2, len2 := ts.bases[i+1], ts.lengths[i+1]
	ts.lengths[i] = len1 + len2
	ts.bases = append(ts.bases[:i+1], ts.bases[i+2:]...)
	ts.lengths = append(ts.lengths[:i+1], ts.lengths[i+2:]...)

	// Items of run 1 that sort before run 2's first item are already in place.
	skip := gallopRight(a[base2], a, base1, len1, 0, compare)
	base1 += skip
	len1 -= skip
	if len1 == 0 {
		return nil
	}
	// So are the items of run 2 that sort after run 1's last item.
	len2 = gallopLeft(a[base1+len1-1], a, base2, len2, len2-1, compare)
	if len2 == 0 {
		return nil
	}
	if len1 <= len2 {
		return ts.mergeLo(base1, len1, base2, len2)
	}
	return ts.mergeHi(base1, len1, base2, len2)
}

// mergeLo merges two adjacent runs left to right, the first (shorter) one copied aside.
// For a comparator that keeps its contract, run 2's first item goes before all of run 1 and
// run 1's last item after all of run 2; running out of run 1 early means it did not.
func (ts *timSort[T]) mergeLo(base1, len1, base2, len2 int) error {
	a, compare := ts.a, ts.compare
	buf := append([]T(nil), a[base1:base1+len1]...)
	c1, c2, dest := 0, base2, base1 // cursors into buf, run 2 and the output

	a[dest] = a[c2]
	dest++
	c2++
	len2--
	if len2 == 0 {
		copy(a[dest:dest+len1], buf[c1:c1+len1])
		return nil
	}
	if len1 == 1 {
		copy(a[dest:dest+len2], a[c2:c2+len2])
		a[dest+len2] = buf[c1]
		return nil
	}

	gallop := ts.minGallop
outer:
	for {
		wins1, wins2 := 0, 0 // how many times in a row each run supplied the next item
		// One item at a time until one run wins `gallop` times in a row.
		for {
			if compare(a[c2], buf[c1]) < 0 {
				a[dest] = a[c2]
				dest++
				c2++
				wins2++
				wins1 = 0
				len2--
				if len2 == 0 {
					break outer
				}
			} else {
				a[dest] = buf[c1]
				dest++
				c1++
				wins1++
				wins2 = 0
				len1--
				if len1 == 1 {
					break outer
				}
			}
			if (wins1 | wins2) >= gallop {
				break
			}
		}

		// Galloping: copy whole stretches of one run while that keeps paying off.
		for {
			wins1 = gallopRight(a[c2], buf, c1, len1, 0, compare)
			if wins1 != 0 {
				copy(a[dest:dest+wins1], buf[c1:c1+wins1])
				dest += wins1
				c1 += wins1
				len1 -= wins1
				if len1 <= 1 { // 0 only if the comparator breaks its contract
					break outer
				}
			}
			a[dest] = a[c2]
			dest++
			c2++
			len2--
			if len2 == 0 {
				break outer
			}

			wins2 = gallopLeft(buf[c1], a, c2, len2, 0, compare)
			if wins2 != 0 {
				copy(a[dest:dest+wins2], a[c2:c2+wins2])
				dest += wins2
				c2 += wins2
				len2 -= wins2
				if len2 == 0 {
					break outer
				}
			}
			a[dest] = buf[c1]
			dest++
			c1++
			len1--
			if len1 == 1 {
				break outer
			}
			gallop--
			if wins1 < minGallop && wins2 < minGallop {
				break
			}
		}
		// Leaving gallop mode makes entering it again harder.
		if gallop < 0 {
			gallop = 0
		}
		gallop += 2
	}

	if gallop < 1 {
		gallop = 1
	}
	ts.minGallop = gallop
	switch len1 {
	case 1: // run 1's last item goes after the rest of run 2
		copy(a[dest:dest+len2], a[c2:c2+len2])
		a[dest+len2] = buf[c1]
	case 0:
		return errContractViolation
	default: // run 2 is used up
		copy(a[dest:dest+len1], buf[c1:c1+len1])
	}
	return nil
}

// mergeHi merges two adjacent runs right to left, the second (shorter) one copied aside;
// the mirror image of mergeLo.
func (ts *timSort[T]) mergeHi(base1, len1, base2, len2 int) error {
	a, compare := ts.a, ts.compare
	buf := append([]T(nil), a[base2:base2+len2]...)
	c1 := base1 + len1 - 1 // last unmerged item of run 1 (in a)
	c2 := len2 - 1         // last unmerged item of run 2 (in buf)
	dest := base2 + len2 - 1

	a[dest] = a[c1]
	dest--
	c1--
	len1--
	if len1 == 0 {
		copy(a[dest-len2+1:dest+1], buf[:len2])
		return nil
	}
	if len2 == 1 {
		dest -= len1
		c1 -= len1
		copy(a[dest+1:dest+1+len1], a[c1+1:c1+1+len1])
		a[dest] = buf[c2]
		return nil
	}

	gallop := ts.minGallop
outer:
	for {
		wins1, wins2 := 0, 0
		for {
			if compare(buf[c2], a[c1]) < 0 {
				a[dest] = a[c1]
				dest--
				c1--
				wins1++
				wins2 = 0
				len1--
				if len1 == 0 {
					break outer
				}
			} else {
				a[dest] = buf[c2]
				dest--
				c2--
				wins2++
				wins1 = 0
				len2--
				if len2 == 1 {
					break outer
				}
			}
			if (wins1 | wins2) >= gallop {
				break
			}
		}

		for {
			wins1 = len1 - gallopRight(buf[c2], a, base1, len1, len1-1, compare)
			if wins1 != 0 {
				dest -= wins1
				c1 -= wins1
				len1 -= wins1
				copy(a[dest+1:dest+1+wins1], a[c1+1:c1+1+wins1])
				if len1 == 0 {
					break outer
				}
			}
			a[dest] = buf[c2]
			dest--
			c2--
			len2--
			if len2 == 1 {
				break outer
			}

			wins2 = len2 - gallopLeft(a[c1], buf, 0, len2, len2-1, compare)
			if wins2 != 0 {
				dest -= wins2
				c2 -= wins2
				len2 -= wins2
				copy(a[dest+1:dest+1+wins2], buf[c2+1:c2+1+wins2])
				if len2 <= 1 { // 0 only if the comparator breaks its contract
					break outer
				}
			}
			a[dest] = a[c1]
			dest--
			c1--
			len1--
			if len1 == 0 {
				break outer
			}
			gallop--
			if wins1 < minGallop && wins2 < minGallop {
				break
			}
		}
		if gallop < 0 {
			gallop = 0
		}
		gallop += 2
	}

	if gallop < 1 {
		gallop = 1
	}
	ts.minGallop = gallop
	switch len2 {
	case 1: // run 2's first item goes before the rest of run 1
		dest -= len1
		c1 -= len1
		copy(a[dest+1:dest+1+len1], a[c1+1:c1+1+len1])
		a[dest] = buf[c2]
	case 0:
		return errContractViolation
	default: // run 1 is used up
		copy(a[dest-len2+1:dest+1], buf[:len2])
	}
	return nil
}

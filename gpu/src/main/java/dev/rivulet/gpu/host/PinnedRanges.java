package dev.rivulet.gpu.host;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Host address ranges pinned with the stand-in, checked on every copy without allocating: sorted start and end
 * arrays replaced whole on each (rare) change and read through one volatile reference.
 */
final class PinnedRanges {

    private record Ranges(long[] starts, long[] ends) {
    }

    private volatile Ranges ranges = new Ranges(new long[0], new long[0]);

    synchronized void add(MemorySegment s) {
        Ranges r = ranges;
        long start = s.address();
        int i = Arrays.binarySearch(r.starts, start);
        if (i >= 0) {
            throw new IllegalStateException("already pinned: 0x" + Long.toHexString(start));
        }
        int at = -i - 1;
        ranges = new Ranges(insert(r.starts, at, start), insert(r.ends, at, start + s.byteSize()));
    }

    synchronized boolean remove(MemorySegment s) {
        Ranges r = ranges;
        int i = Arrays.binarySearch(r.starts, s.address());
        if (i < 0) {
            return false;
        }
        ranges = new Ranges(delete(r.starts, i), delete(r.ends, i));
        return true;
    }

    /** Whether {@code [address, address + length)} lies inside one pinned range. */
    boolean covers(long address, long length) {
        Ranges r = ranges;
        int i = Arrays.binarySearch(r.starts, address);
        int at = i >= 0 ? i : -i - 2;
        return at >= 0 && address + length <= r.ends[at];
    }

    int size() {
        return ranges.starts.length;
    }

    private static long[] insert(long[] a, int at, long v) {
        long[] b = new long[a.length + 1];
        System.arraycopy(a, 0, b, 0, at);
        b[at] = v;
        System.arraycopy(a, at, b, at + 1, a.length - at);
        return b;
    }

    private static long[] delete(long[] a, int at) {
        long[] b = new long[a.length - 1];
        System.arraycopy(a, 0, b, 0, at);
        System.arraycopy(a, at + 1, b, at, a.length - at - 1);
        return b;
    }
}

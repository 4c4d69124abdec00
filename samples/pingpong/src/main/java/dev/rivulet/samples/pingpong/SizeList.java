package dev.rivulet.samples.pingpong;

import java.util.ArrayList;
import java.util.List;

/**
 * Which message sizes a run goes through ({@code -S}), generated as fi_pingpong's {@code generate_test_sizes} does,
 * and how large the buffers must be for them.
 */
public final class SizeList {

    /** fi_pingpong's {@code PP_MAX_DATA_MSG}: 4 MiB + 2 MiB, the buffer size when {@code -S} names no one size. */
    public static final long MAX_DATA_MESSAGE = (1L << 22) + (1L << 21);

    private static final int[] DEFAULTS = {64, 256, 1024, 4096, 65536, 1048576};

    private enum Kind { SINGLE, DEFAULTS, ALL }

    private final Kind kind;
    private final int size;

    private SizeList(Kind kind, int size) {
        this.kind = kind;
        this.size = size;
    }

    /** {@code -S n}. */
    public static SizeList single(int size) {
        return new SizeList(Kind.SINGLE, size);
    }

    /** No {@code -S}: 64 B to 1 MiB. */
    public static SizeList defaults() {
        return new SizeList(Kind.DEFAULTS, 0);
    }

    /** {@code -S all}: 0, 1, then each power of two and one and a half times it. */
    public static SizeList all() {
        return new SizeList(Kind.ALL, 0);
    }

    /**
     * The size of each side's send and receive buffer before the endpoint's {@code max_msg_size} caps it
     * (fi_pingpong's {@code tx_size}, which equals {@code rx_size}): the one size, or {@link #MAX_DATA_MESSAGE}.
     * The peer posts receives of this size, so the two sides must be given the same {@code -S}.
     */
    public long bufferSize() {
        return kind == Kind.SINGLE ? size : MAX_DATA_MESSAGE;
    }

    /** The sizes to run with buffers of {@code txSize} bytes; empty when a single size does not fit. */
    public List<Integer> sizes(long txSize) {
        List<Integer> out = new ArrayList<>();
        switch (kind) {
            case SINGLE -> {
                if (size <= txSize) {
                    out.add(size);
                }
            }
            case DEFAULTS -> {
                for (int d : DEFAULTS) {
                    if (d > txSize) {
                        break;
                    }
                    out.add(d);
                }
            }
            case ALL -> {
                for (int i = 0; i < 31; i++) {
                    long powerOfTwo = i == 0 ? 0 : 1L << i;
                    long halfUp = i == 0 ? 1 : powerOfTwo + powerOfTwo / 2;
                    if (powerOfTwo > txSize) {
                        break;
                    }
                    out.add((int) powerOfTwo);
                    if (halfUp > txSize) {
                        break;
                    }
                    out.add((int) halfUp);
                }
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return switch (kind) {
            case SINGLE -> String.valueOf(size);
            case DEFAULTS -> "default";
            case ALL -> "all";
        };
    }
}

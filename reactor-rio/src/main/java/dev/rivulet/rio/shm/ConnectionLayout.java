package dev.rivulet.rio.shm;

import java.nio.ByteBuffer;

/**
 * Where everything of one connection lives in its shared file. Side 0 is the side that accepted the connection,
 * side 1 the one that dialled; each side writes its own ring and staging pool, sized by its own options, and reads
 * the other's.
 *
 * <pre>
 *  [0, 4096)             control: magic, then per side (at 1024 and 2048) its doorbell word and, a cache line
 *                        further, its heartbeat counter
 *  ring 0, ring 1        {@link RecordRing}s, each starting on a page
 *  pool 0, pool 1        {@link StagingPool}s, each starting on a page
 * </pre>
 */
record ConnectionLayout(int ring0, int pool0, int ring1, int pool1) {

    static final long MAGIC = 0x314d_4853_544c_5652L; // "RVLTSHM1", little-endian
    static final int CONTROL_BYTES = 4096;
    private static final long PAGE = 4096;

    static final int ACCEPTING = 0;
    static final int DIALLING = 1;

    ConnectionLayout {
        for (int v : new int[]{ring0, pool0, ring1, pool1}) {
            if (Integer.bitCount(v) != 1) {
                throw new IllegalArgumentException("ring and pool sizes must be powers of two: " + v);
            }
        }
    }

    int ringBytes(int side) {
        return side == ACCEPTING ? ring0 : ring1;
    }

    int poolBytes(int side) {
        return side == ACCEPTING ? pool0 : pool1;
    }

    long bellOffset(int side) {
        return 1024L + 1024L * side;
    }

    long heartbeatOffset(int side) {
        return bellOffset(side) + 128;
    }

    long ringOffset(int side) {
        return CONTROL_BYTES + (side == ACCEPTING ? 0 : pages(RecordRing.bytesFor(ring0)));
    }

    long poolOffset(int side) {
        long rings = CONTROL_BYTES + pages(RecordRing.bytesFor(ring0)) + pages(RecordRing.bytesFor(ring1));
        return rings + (side == ACCEPTING ? 0 : pages(StagingPool.bytesFor(pool0)));
    }

    long totalBytes() {
        return poolOffset(DIALLING) + pages(StagingPool.bytesFor(pool1));
    }

    private static long pages(long bytes) {
        return (bytes + PAGE - 1) & -PAGE;
    }

    void encode(ByteBuffer b) {
        b.putInt(ring0).putInt(pool0).putInt(ring1).putInt(pool1);
    }

    static ConnectionLayout decode(ByteBuffer b) {
        return new ConnectionLayout(b.getInt(), b.getInt(), b.getInt(), b.getInt());
    }
}

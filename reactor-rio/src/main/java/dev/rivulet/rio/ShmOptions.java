package dev.rivulet.rio;

import dev.rivulet.core.TransportOption;

import java.util.List;

/**
 * The options of the shared-memory transport ({@code shm://NAME}, Linux): processes on one host exchanging messages
 * through rings in a shared mapping. Each side's sizes govern what it <em>writes</em>: its ring and its staging pool
 * toward the peer; the peer reads them as they are.
 */
public final class ShmOptions {

    /** Bytes of the record ring this side writes toward its peer, per connection: a power of two. */
    public static final TransportOption<Integer> RING_BYTES = TransportOption.integer("shm.ringBytes", 256 << 10,
            16 << 10, 64 << 20, "bytes of the record ring this side writes per connection (a power of two)");

    /**
     * Messages up to this size are written into the ring itself; larger ones are copied through the staging pool in
     * chunks. At most an eighth of {@link #RING_BYTES}.
     */
    public static final TransportOption<Integer> LARGE_MESSAGE_THRESHOLD = TransportOption.integer(
            "shm.largeMessageThreshold", 8 << 10, 0, 8 << 20,
            "messages up to this size go into the ring; larger ones through the staging pool, bytes");

    /** Bytes of the staging pool this side writes large messages and one-sided data through: a power of two. */
    public static final TransportOption<Integer> POOL_BYTES = TransportOption.integer("shm.poolBytes", 4 << 20,
            64 << 10, 1 << 30, "bytes of the shared staging pool this side writes per connection (a power of two)");

    /** Largest message this side sends and accepts (told to the peer; both use the smaller). */
    public static final TransportOption<Integer> MAX_MESSAGE_SIZE = TransportOption.integer("shm.maxMessageSize",
            16 << 20, 1, 1 << 30, "largest message in bytes");

    /**
     * Times an idle polling thread looks at its rings once more before it sleeps on the futex (after the progress
     * loop's own idle strategy has decided to park).
     */
    public static final TransportOption<Integer> SPIN_BEFORE_SLEEP = TransportOption.integer("shm.spinBeforeSleep",
            50, 0, 1 << 20, "ring checks before an idle polling thread sleeps on its futex");

    /**
     * Whether one-sided operations on memory that is not in a shared mapping (and larger than the threshold) copy
     * with {@code process_vm_readv}/{@code process_vm_writev} where the kernel allows it, instead of staging the
     * bytes through the shared pool.
     */
    public static final TransportOption<Boolean> CROSS_MEMORY_ATTACH = TransportOption.flag("shm.crossMemoryAttach",
            false, "copy one-sided data with process_vm_readv/writev where permitted instead of staging it");

    /** Whether peers map granted windows of shared memory ({@code MemoryDomain.allocateRegion}) themselves. */
    public static final TransportOption<Boolean> MAP_WINDOWS = TransportOption.flag("shm.mapWindows", true,
            "let peers map granted windows of shared regions and access them directly");

    /**
     * Whether opening the transport makes this process non-dumpable ({@code prctl(PR_SET_DUMPABLE, 0)}), so that
     * processes of the same user can no longer open its descriptors, its memory or its shared regions through
     * {@code /proc/<pid>}, nor copy from or into it with {@code process_vm_*}. It is process-wide and stays for the
     * life of the process: no core dumps, tools that read {@code /proc/<pid>} as the same user are refused, and
     * peers cannot map this side's windows nor copy across into it (their operations are served instead).
     */
    public static final TransportOption<Boolean> NON_DUMPABLE = TransportOption.flag("shm.nonDumpable", false,
            "make this process non-dumpable so processes of the same user cannot reach its memory through /proc");

    /**
     * The directory of the listeners' Unix domain sockets; by default {@code $XDG_RUNTIME_DIR/rivulet}, else
     * {@code /tmp/rivulet-<uid>}. It must be owned by this user with mode 0700 (it is created so).
     */
    public static final TransportOption<String> DIRECTORY = TransportOption.text("shm.directory", null,
            "directory of the listeners' sockets (owned by this user, mode 0700)");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL = List.of(RING_BYTES, LARGE_MESSAGE_THRESHOLD, POOL_BYTES,
            MAX_MESSAGE_SIZE, SPIN_BEFORE_SLEEP, CROSS_MEMORY_ATTACH, MAP_WINDOWS, NON_DUMPABLE, DIRECTORY);

    private ShmOptions() {
    }
}

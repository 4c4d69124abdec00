package dev.rivulet.rio.uring.sys;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_ENTER_EXT_ARG;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_ENTER_GETEVENTS;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_ENTER_SQ_WAKEUP;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_FEAT_EXT_ARG;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_FEAT_SINGLE_MMAP;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OFF_CQ_RING;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OFF_SQES;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OFF_SQ_RING;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_REGISTER_BUFFERS;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_REGISTER_BUFFERS2;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_REGISTER_BUFFERS_UPDATE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_RSRC_REGISTER_SPARSE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_REGISTER_ENABLE_RINGS;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_REGISTER_PROBE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_CQE32;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_CQSIZE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SQE128;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SQPOLL;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SQ_NEED_WAKEUP;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_UNREGISTER_BUFFERS;

import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.core.sys.Mappings;
import dev.rivulet.core.sys.Timespec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Locale;

/**
 * One io_uring instance: the ring file descriptor, its three shared mappings (SQ ring, CQ ring, SQE array), and
 * the submit / wait / reap operations over them. Built on raw system calls, no liburing.
 *
 * <h2>Threading</h2>
 * Not thread-safe: one thread owns the ring and does all submitting and reaping (use a platform thread; a virtual
 * thread pins its carrier in {@code io_uring_enter}, and {@link IoUringConstants#IORING_SETUP_SINGLE_ISSUER}
 * binds the ring to the thread that created it). Other threads wake the owner through the ring itself, e.g. by
 * writing an eventfd the owner has a read posted on.
 *
 * <h2>Memory ordering</h2>
 * The rings are shared with the kernel, which runs concurrently on another CPU. Following io_uring(7) and
 * liburing: SQE contents are published by a <em>store-release</em> of the SQ tail; the kernel's SQ head and CQ
 * tail are read with <em>load-acquire</em>; consumed CQEs are handed back by a <em>store-release</em> of the CQ
 * head, after their fields were read. With SQPOLL, a full fence separates the tail store from the read of the
 * {@code NEED_WAKEUP} flag.
 *
 * <h2>Ownership</h2>
 * The ring's {@link Arena} owns everything native it uses: the params, the wait arguments, the errno capture
 * buffer and the three mappings (whose cleanup action is {@code munmap}). {@link #close()} closes that arena, then
 * the fd; afterwards any SQE flyweight still held throws instead of touching unmapped memory.
 *
 * <h2>Errors</h2>
 * Failing system calls throw {@link ErrnoException}. Per-request failures are not exceptions: they arrive as
 * {@code res = -errno} in the request's CQE.
 */
public final class IoUring implements AutoCloseable {

    /**
     * user_data this class reserves for its own timeout SQEs (kernels without {@code IORING_FEAT_EXT_ARG});
     * {@link #forEachCompletion} swallows those CQEs. Same value as liburing's {@code LIBURING_UDATA_TIMEOUT}.
     */
    public static final long RESERVED_USER_DATA = -1L;

    // int view of the rings; coordinates (segment, byte offset). Every ring index is 4-byte aligned.
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private static final int SQ_ARRAY_ENTRY_BYTES = 4;
    private static final int MAX_REGISTER_RETRIES = 16;

    private final Arena arena;
    private final int fd;
    private final int setupFlags;
    private final int features;
    private final int sqEntries;
    private final int cqEntries;
    private final boolean sqPoll;

    private final MemorySegment sqRing;
    private final MemorySegment cqRing;
    private final long sqHeadOff;
    private final long sqTailOff;
    private final long sqFlagsOff;
    private final long sqDroppedOff;
    private final int sqMask;
    private final long cqHeadOff;
    private final long cqTailOff;
    private final long cqOverflowOff;
    private final long cqesOff;
    private final int cqMask;
    private final int cqeShift; // log2 of the CQE size: 4, or 5 with CQE32

    private final IoUringSqe[] slots;
    private final MemorySegment errnoState;
    private final MemorySegment waitArg;
    private final MemorySegment waitTimespec;
    private final MemorySegment timeoutSqeTimespec;

    private boolean useExtArg;
    private int sqeTail;          // local producer index: slots handed out so far
    private int cqHead;           // local consumer index; mirrors what we last stored to the ring
    private int internalTimeouts; // our fallback timeout SQEs whose CQE has not been reaped yet
    private IoUringProbe probe;
    private boolean closed;

    private IoUring(Arena arena, int fd, MemorySegment params, MemorySegment errnoState) {
        this.arena = arena;
        this.fd = fd;
        this.errnoState = errnoState;
        this.setupFlags = IoUringParams.flags(params);
        this.features = IoUringParams.features(params);
        this.sqEntries = IoUringParams.sqEntries(params);
        this.cqEntries = IoUringParams.cqEntries(params);
        this.sqPoll = (setupFlags & IORING_SETUP_SQPOLL) != 0;
        this.useExtArg = (features & IORING_FEAT_EXT_ARG) != 0;

        long sq = IoUringParams.SQ_OFF_OFFSET;
        long cq = IoUringParams.CQ_OFF_OFFSET;
        int sqArrayOff = IoSqringOffsets.array(params, sq);
        this.cqesOff = Integer.toUnsignedLong(IoCqringOffsets.cqes(params, cq));
        this.cqeShift = (setupFlags & IORING_SETUP_CQE32) != 0 ? 5 : 4;
        long sqeSize = (setupFlags & IORING_SETUP_SQE128) != 0 ? 2 * IoUringSqe.SIZE : IoUringSqe.SIZE;

        // Sizes per io_uring_setup(2): the SQ ring ends with the index array, the CQ ring with the CQE array.
        long sqRingSize = Integer.toUnsignedLong(sqArrayOff) + (long) sqEntries * SQ_ARRAY_ENTRY_BYTES;
        long cqRingSize = cqesOff + ((long) cqEntries << cqeShift);
        if ((features & IORING_FEAT_SINGLE_MMAP) != 0) {
            // One mapping serves both rings; it must cover the larger of the two.
            long size = Math.max(sqRingSize, cqRingSize);
            this.sqRing = map(arena, fd, size, IORING_OFF_SQ_RING);
            this.cqRing = sqRing;
        } else {
            this.sqRing = map(arena, fd, sqRingSize, IORING_OFF_SQ_RING);
            this.cqRing = map(arena, fd, cqRingSize, IORING_OFF_CQ_RING);
        }
        MemorySegment sqes = map(arena, fd, sqEntries * sqeSize, IORING_OFF_SQES);

        this.sqHeadOff = IoSqringOffsets.head(params, sq);
        this.sqTailOff = IoSqringOffsets.tail(params, sq);
        this.sqFlagsOff = IoSqringOffsets.flags(params, sq);
        this.sqDroppedOff = IoSqringOffsets.dropped(params, sq);
        this.sqMask = (int) INT.get(sqRing, (long) IoSqringOffsets.ringMask(params, sq));
        this.cqHeadOff = IoCqringOffsets.head(params, cq);
        this.cqTailOff = IoCqringOffsets.tail(params, cq);
        this.cqOverflowOff = IoCqringOffsets.overflow(params, cq);
        this.cqMask = (int) INT.get(cqRing, (long) IoCqringOffsets.ringMask(params, cq));

        // The SQ array maps ring slot -> SQE index. Fixing it to the identity once (as liburing does) lets
        // submission write only SQEs and the tail.
        this.slots = new IoUringSqe[sqEntries];
        for (int i = 0; i < sqEntries; i++) {
            INT.set(sqRing, sqArrayOff + (long) i * SQ_ARRAY_ENTRY_BYTES, i);
            slots[i] = new IoUringSqe(sqes.asSlice(i * sqeSize, sqeSize));
        }
        this.sqeTail = (int) INT.getAcquire(sqRing, sqTailOff);
        this.cqHead = (int) INT.getAcquire(cqRing, cqHeadOff);

        this.waitTimespec = arena.allocate(Timespec.LAYOUT);
        this.timeoutSqeTimespec = arena.allocate(Timespec.LAYOUT);
        this.waitArg = arena.allocate(IoUringGeteventsArg.LAYOUT);
        IoUringGeteventsArg.set(waitArg, waitTimespec); // only the timespec's contents change per wait
    }

    // ---- Setup ----------------------------------------------------------------------------------------------

    /** A ring with {@code entries} SQEs (rounded up to a power of two by the kernel) and default flags. */
    public static IoUring open(int entries) {
        return open(entries, 0, 0, 0);
    }

    /**
     * A ring with setup flags. {@code requiredFlags} must be granted; {@code optionalFlags} are wanted where the
     * kernel supports them: when setup fails with {@code EINVAL}, the highest remaining optional flag is dropped
     * and setup retried (highest first, because later flags depend on earlier ones: DEFER_TASKRUN needs
     * SINGLE_ISSUER, TASKRUN_FLAG needs COOP_TASKRUN). {@link #setupFlags()} tells what was granted.
     */
    public static IoUring open(int entries, int requiredFlags, int optionalFlags) {
        return open(entries, 0, requiredFlags, optionalFlags);
    }

    /** As {@link #open(int, int, int)}, with an explicit CQ size ({@code IORING_SETUP_CQSIZE}); 0 = default. */
    public static IoUring open(int entries, int cqEntries, int requiredFlags, int optionalFlags) {
        if (entries <= 0) {
            throw new IllegalArgumentException("entries must be positive: " + entries);
        }
        optionalFlags &= ~requiredFlags;
        Arena arena = Arena.ofShared();
        try {
            MemorySegment params = arena.allocate(IoUringParams.LAYOUT);
            MemorySegment errnoState = Downcalls.errnoState(arena);
            int flags = requiredFlags | optionalFlags;
            int fd;
            while (true) {
                params.fill((byte) 0);
                IoUringParams.flags(params, flags | (cqEntries > 0 ? IORING_SETUP_CQSIZE : 0));
                if (cqEntries > 0) {
                    IoUringParams.cqEntries(params, cqEntries);
                }
                fd = IoUringSyscalls.setup(errnoState, entries, params);
                if (fd >= 0) {
                    break;
                }
                int optionalLeft = flags & optionalFlags;
                if (fd == -Errno.EINVAL && optionalLeft != 0) {
                    flags &= ~Integer.highestOneBit(optionalLeft);
                    continue;
                }
                throw new ErrnoException("io_uring_setup", -fd);
            }
            try {
                return new IoUring(arena, fd, params, errnoState);
            } catch (RuntimeException | Error e) {
                Descriptors.close(fd);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            arena.close(); // unmaps whatever was mapped before the failure
            throw e;
        }
    }

    /**
     * Whether io_uring can be used in this process: Linux on x86-64 or aarch64 (the layouts and socket constants
     * here are checked for those), and a kernel that lets us create a ring (it may be compiled out, disabled by
     * {@code sysctl kernel.io_uring_disabled}, or blocked by a seccomp filter, as in default container profiles).
     */
    public static Availability availability() {
        return AvailabilityHolder.AVAILABILITY;
    }

    private static final class AvailabilityHolder {
        static final Availability AVAILABILITY = check();

        private static Availability check() {
            String os = System.getProperty("os.name", "");
            String arch = System.getProperty("os.arch", "");
            if (!os.toLowerCase(Locale.ROOT).startsWith("linux")) {
                return Availability.no("io_uring requires Linux (os.name=" + os + ")");
            }
            if (!(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
                return Availability.no("the io_uring binding is checked for x86-64 and aarch64 only"
                        + " (os.arch=" + arch + ")");
            }
            try {
                open(2).close();
                return Availability.yes();
            } catch (ErrnoException e) {
                String why = switch (e.errno()) {
                    case Errno.ENOSYS -> "this kernel has no io_uring";
                    case Errno.EPERM -> "io_uring is not permitted here "
                            + "(sysctl kernel.io_uring_disabled, or a seccomp filter such as a container's)";
                    default -> "io_uring_setup failed";
                };
                return Availability.no(why + ": " + e.getMessage());
            } catch (UnsatisfiedLinkError | IllegalCallerException e) {
                return Availability.no("native access unavailable: " + e);
            }
        }
    }

    // ---- Submission -----------------------------------------------------------------------------------------

    /**
     * The next free SQE, zeroed, or {@code null} when all {@link #sqEntries()} slots are taken by SQEs the kernel
     * has not consumed yet (submit, then try again). The SQE becomes visible to the kernel at the next
     * {@link #submit()} / {@link #submitAndWait}.
     */
    public IoUringSqe nextSqe() {
        int head = (int) INT.getAcquire(sqRing, sqHeadOff);
        if (sqeTail - head >= sqEntries) { // free-running u32 indices: the difference is exact
            return null;
        }
        IoUringSqe sqe = slots[sqeTail & sqMask];
        sqeTail++;
        return sqe.clear();
    }

    /**
     * Publishes all prepared SQEs and tells the kernel about them. Returns the number of SQEs the kernel
     * consumed (with SQPOLL: the number published, which its thread consumes on its own). An interrupted call
     * ({@code EINTR}) returns 0 and leaves the SQEs pending for the next call.
     *
     * @throws ErrnoException e.g. {@code EBUSY} while overflowed completions wait to be reaped (retryable)
     */
    public int submit() {
        int pending = publishSq();
        if (sqPoll) {
            if (sqPollerNeedsWakeup()) {
                enterOrThrow(0, 0, IORING_ENTER_SQ_WAKEUP, MemorySegment.NULL, 0);
            }
            return pending;
        }
        if (pending == 0) {
            return 0;
        }
        return enterOrThrow(pending, 0, 0, MemorySegment.NULL, 0);
    }

    /**
     * Publishes and submits pending SQEs, then waits until at least {@code minComplete} completions are ready or
     * {@code timeoutNanos} elapsed ({@code < 0}: no timeout; {@code 0} with {@code minComplete} 0: just flush
     * deferred completions and return). Returns the number of SQEs consumed; a timeout or a signal is not an
     * error: the call returns and {@link #forEachCompletion} shows what did complete.
     *
     * <p>Uses {@code IORING_ENTER_EXT_ARG} when the kernel has {@code IORING_FEAT_EXT_ARG} (5.11+); otherwise it
     * queues an {@code IORING_OP_TIMEOUT} SQE with user_data {@link #RESERVED_USER_DATA}, as liburing does.
     */
    public int submitAndWait(int minComplete, long timeoutNanos) {
        int enterFlags = IORING_ENTER_GETEVENTS;
        MemorySegment arg = MemorySegment.NULL;
        long argSize = 0;
        boolean timeoutSqe = false;
        if (timeoutNanos >= 0) {
            if (useExtArg) {
                Timespec.setNanos(waitTimespec, timeoutNanos);
                enterFlags |= IORING_ENTER_EXT_ARG;
                arg = waitArg;
                argSize = IoUringGeteventsArg.LAYOUT.byteSize();
            } else if (minComplete > 0) { // with nothing to wait for, the enter returns at once anyway
                queueTimeoutSqe(minComplete, timeoutNanos);
                timeoutSqe = true;
            }
        }
        int pending = publishSq();
        if (sqPoll && sqPollerNeedsWakeup()) {
            enterFlags |= IORING_ENTER_SQ_WAKEUP;
        }
        int consumed = enterOrThrow(pending, minComplete, enterFlags, arg, argSize);
        // Our timeout SQE is the last pending one; do not report it as the caller's.
        return timeoutSqe && consumed == pending ? consumed - 1 : consumed;
    }

    private void queueTimeoutSqe(int minComplete, long timeoutNanos) {
        IoUringSqe sqe = nextSqe();
        if (sqe == null) {
            submit(); // make room: consumed SQEs free their slots
            sqe = nextSqe();
            if (sqe == null) {
                throw new ErrnoException("io_uring_enter (no free SQE for the wait timeout)", Errno.EBUSY);
            }
        }
        // The kernel copies the timespec when it prepares the SQE during submission, so one buffer suffices
        // (with SQPOLL that copy is asynchronous; SQPOLL kernels without EXT_ARG are 5.10 and older).
        Timespec.setNanos(timeoutSqeTimespec, timeoutNanos);
        sqe.prepTimeout(timeoutSqeTimespec, minComplete, 0).userData(RESERVED_USER_DATA);
        internalTimeouts++;
    }

    /** Store-release of the SQ tail; returns the number of SQEs published but not yet consumed. */
    private int publishSq() {
        INT.setRelease(sqRing, sqTailOff, sqeTail);
        return sqeTail - (int) INT.getAcquire(sqRing, sqHeadOff);
    }

    private boolean sqPollerNeedsWakeup() {
        // The tail store must be visible before we read the flag the poller sets before sleeping (io_uring(7)).
        VarHandle.fullFence();
        return ((int) INT.getAcquire(sqRing, sqFlagsOff) & IORING_SQ_NEED_WAKEUP) != 0;
    }

    private int enterOrThrow(int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
        int r = IoUringSyscalls.enter(errnoState, fd, toSubmit, minComplete, flags, arg, argSize);
        if (r >= 0) {
            return r;
        }
        if (r == -Errno.ETIME || r == -Errno.EINTR) {
            return 0; // the kernel reports the wait's outcome only when nothing was submitted
        }
        throw new ErrnoException("io_uring_enter", -r);
    }

    // ---- Completion -----------------------------------------------------------------------------------------

    /** Hands every ready completion to {@code handler}; returns how many. Never blocks, never allocates. */
    public int forEachCompletion(CqeHandler handler) {
        return forEachCompletion(handler, Integer.MAX_VALUE);
    }

    /**
     * Hands up to {@code max} ready completions to {@code handler}, oldest first, and returns how many. The
     * consumed CQEs are released to the kernel once, at the end (also when the handler throws: the CQE it was
     * given counts as consumed). The handler may prepare and submit new SQEs.
     */
    public int forEachCompletion(CqeHandler handler, int max) {
        int head = cqHead;
        int tail = (int) INT.getAcquire(cqRing, cqTailOff); // pairs with the kernel's release of the tail
        int delivered = 0;
        try {
            while (head != tail && delivered < max) {
                long base = cqesOff + ((long) (head & cqMask) << cqeShift);
                long userData = IoUringCqe.userData(cqRing, base);
                int res = IoUringCqe.res(cqRing, base);
                int flags = IoUringCqe.flags(cqRing, base);
                head++;
                if (userData == RESERVED_USER_DATA && internalTimeouts > 0) {
                    internalTimeouts--;
                    continue;
                }
                delivered++;
                handler.onCompletion(userData, res, flags);
            }
        } finally {
            if (head != cqHead) {
                cqHead = head;
                INT.setRelease(cqRing, cqHeadOff, head); // our reads of those CQEs happen-before the kernel reuse
            }
        }
        return delivered;
    }

    /** Completions ready to reap now (may include one of our internal timeout CQEs). */
    public int completionsReady() {
        return (int) INT.getAcquire(cqRing, cqTailOff) - cqHead;
    }

    // ---- Registration ---------------------------------------------------------------------------------------

    /**
     * Registers {@code buffers} as fixed buffers 0..n-1 ({@code IORING_REGISTER_BUFFERS}): pinned once instead
     * of per I/O, then named by {@code buf_index} in READ_FIXED / WRITE_FIXED / SEND_ZC with FIXED_BUF. Each must
     * be native, anonymous memory (an {@link Arena} allocation; not a heap segment, not a file mapping) of at most
     * 1 GiB, and must outlive the registration. Pinned pages count against {@code RLIMIT_MEMLOCK} unless the
     * process has {@code CAP_IPC_LOCK} ({@code ENOMEM} otherwise).
     */
    public void registerBuffers(MemorySegment... buffers) {
        try (Arena scratch = Arena.ofConfined()) { // the kernel copies the iovec array during the call
            MemorySegment iovecs = scratch.allocate(Iovec.LAYOUT, Math.max(1, buffers.length));
            for (int i = 0; i < buffers.length; i++) {
                MemorySegment b = buffers[i];
                if (!b.isNative()) {
                    throw new IllegalArgumentException("buffer " + i + " is not native memory: " + b);
                }
                Iovec.set(iovecs, i, b);
            }
            registerBuffers(iovecs, buffers.length);
        }
    }

    /** {@code IORING_REGISTER_BUFFERS} with a caller-built array of {@code count} {@link Iovec}s. */
    public void registerBuffers(MemorySegment iovecs, int count) {
        register(IORING_REGISTER_BUFFERS, iovecs, count, "IORING_REGISTER_BUFFERS");
    }

    /**
     * Creates a table of {@code slots} empty fixed-buffer slots ({@code IORING_REGISTER_BUFFERS2} with
     * {@code IORING_RSRC_REGISTER_SPARSE}, 5.19+), to be filled and emptied one by one with {@link #updateBuffer}
     * while the ring runs: what a transport needs when connections, and so their buffers, come and go.
     */
    public void registerBuffersSparse(int slots) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment arg = scratch.allocate(IoUringRsrcRegister.LAYOUT);
            IoUringRsrcRegister.set(arg, slots, IORING_RSRC_REGISTER_SPARSE, MemorySegment.NULL);
            register(IORING_REGISTER_BUFFERS2, arg, (int) IoUringRsrcRegister.LAYOUT.byteSize(),
                    "IORING_REGISTER_BUFFERS2");
        }
    }

    /**
     * Puts {@code buffer} into fixed-buffer slot {@code slot} of a sparse table ({@code IORING_REGISTER_BUFFERS_UPDATE});
     * {@link MemorySegment#NULL} empties the slot. Requests already in flight on the old buffer keep it pinned until
     * they complete.
     */
    public void updateBuffer(int slot, MemorySegment buffer) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment iov = scratch.allocate(Iovec.LAYOUT);
            if (buffer.address() != 0) {
                Iovec.set(iov, 0, buffer);
            }
            MemorySegment arg = scratch.allocate(IoUringRsrcUpdate2.LAYOUT);
            IoUringRsrcUpdate2.set(arg, slot, iov, 1);
            register(IORING_REGISTER_BUFFERS_UPDATE, arg, (int) IoUringRsrcUpdate2.LAYOUT.byteSize(),
                    "IORING_REGISTER_BUFFERS_UPDATE");
        }
    }

    /** {@code IORING_UNREGISTER_BUFFERS}; no fixed-buffer request may be in flight. */
    public void unregisterBuffers() {
        register(IORING_UNREGISTER_BUFFERS, MemorySegment.NULL, 0, "IORING_UNREGISTER_BUFFERS");
    }

    /** {@code IORING_REGISTER_ENABLE_RINGS}: starts a ring created with {@code IORING_SETUP_R_DISABLED}. */
    public void enable() {
        register(IORING_REGISTER_ENABLE_RINGS, MemorySegment.NULL, 0, "IORING_REGISTER_ENABLE_RINGS");
    }

    /** Which opcodes this kernel supports ({@code IORING_REGISTER_PROBE}); asked once, then cached. */
    public IoUringProbe probe() {
        if (probe == null) {
            try (Arena scratch = Arena.ofConfined()) {
                // Zeroed by the arena: the kernel rejects a probe buffer with stray bytes (EINVAL).
                MemorySegment p = scratch.allocate(IoUringProbe.byteSize(IoUringProbe.MAX_OPS), 8);
                register(IORING_REGISTER_PROBE, p, IoUringProbe.MAX_OPS, "IORING_REGISTER_PROBE");
                probe = IoUringProbe.decode(p);
            }
        }
        return probe;
    }

    private int register(int opcode, MemorySegment arg, int nrArgs, String what) {
        int r = 0;
        // Some register opcodes quiesce the ring and can be interrupted by a signal; retrying is what liburing does.
        for (int attempt = 0; attempt < MAX_REGISTER_RETRIES; attempt++) {
            r = IoUringSyscalls.register(errnoState, fd, opcode, arg, nrArgs);
            if (r != -Errno.EINTR) {
                break;
            }
        }
        return ErrnoException.check("io_uring_register(" + what + ")", r);
    }

    // ---- State ----------------------------------------------------------------------------------------------

    /** The ring file descriptor. */
    public int fd() {
        return fd;
    }

    /** The setup flags the kernel granted (after dropping refused optional flags). */
    public int setupFlags() {
        return setupFlags;
    }

    /** {@code IORING_FEAT_*} bits reported by the kernel. */
    public int features() {
        return features;
    }

    public boolean hasFeature(int feature) {
        return (features & feature) == feature;
    }

    public int sqEntries() {
        return sqEntries;
    }

    public int cqEntries() {
        return cqEntries;
    }

    /** Free SQE slots right now. */
    public int sqSpaceLeft() {
        return sqEntries - (sqeTail - (int) INT.getAcquire(sqRing, sqHeadOff));
    }

    /**
     * The SQ ring flags ({@code IORING_SQ_NEED_WAKEUP}, {@code IORING_SQ_CQ_OVERFLOW}, {@code IORING_SQ_TASKRUN}):
     * with CQ_OVERFLOW or TASKRUN set, reaping needs a kernel entry, e.g. {@code submitAndWait(0, 0)}.
     */
    public int sqRingFlags() {
        return (int) INT.getAcquire(sqRing, sqFlagsOff);
    }

    /** Completions the kernel had to drop (stays 0 with {@code IORING_FEAT_NODROP}). */
    public int cqOverflow() {
        return (int) INT.getAcquire(cqRing, cqOverflowOff);
    }

    /** Invalid SQEs the kernel skipped. */
    public int sqDropped() {
        return (int) INT.getAcquire(sqRing, sqDroppedOff);
    }

    /** Forces the {@code IORING_OP_TIMEOUT} fallback of {@link #submitAndWait}, so tests can cover it. */
    void useTimeoutSqeForWaits() {
        useExtArg = false;
    }

    /**
     * Unmaps the rings and closes the fd; idempotent. Requests still in flight are cancelled by the kernel.
     * Call it from the owning thread, or after that thread has left the ring: closing while another thread is
     * inside {@code io_uring_enter} fails (the arena is in use) rather than unmapping memory under it.
     */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        arena.close(); // munmap of the three regions runs as the mappings' cleanup actions
        closed = true;
        Descriptors.close(fd); // nothing sensible to do on failure: the descriptor is gone either way
    }

    @Override
    public String toString() {
        return "IoUring[fd=" + fd + ", sq=" + sqEntries + ", cq=" + cqEntries
                + ", flags=0x" + Integer.toHexString(setupFlags) + ", features=0x" + Integer.toHexString(features)
                + (closed ? ", closed" : "") + "]";
    }

    private static MemorySegment map(Arena arena, int fd, long size, long offset) {
        return Mappings.map(size, Mappings.PROT_READ | Mappings.PROT_WRITE, Mappings.MAP_SHARED | Mappings.MAP_POPULATE,
                fd, offset, arena);
    }
}

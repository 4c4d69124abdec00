package dev.rivulet.rio.uring.sys;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_ACCEPT;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_ASYNC_CANCEL;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_CONNECT;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_NOP;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_POLL_ADD;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_READ;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_READ_FIXED;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_RECV;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_RECVMSG;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SENDMSG;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SEND;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SEND_ZC;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_TIMEOUT;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_WRITE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_WRITE_FIXED;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_RECVSEND_FIXED_BUF;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Msghdr;
import dev.rivulet.core.sys.Timespec;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_sqe} (64 bytes; 128 with {@code IORING_SETUP_SQE128}): one submission queue entry.
 *
 * <p>An instance is a flyweight over one slot of the kernel-shared SQE array. {@link IoUring} creates one per slot
 * at setup and hands them out from {@link IoUring#nextSqe()}, zeroed, so filling an SQE never allocates. Setters
 * return {@code this} for chaining; the {@code prep*} methods mirror liburing's {@code io_uring_prep_*} helpers
 * (which are {@code static inline} there, hence rebuilt here) and expect a freshly zeroed slot.
 *
 * <p>The C struct is mostly unions; each is modelled by its first member, and the aliases below write the same
 * bytes: {@code off} = {@code addr2} (whose low half is {@code cmd_op}); {@code addr} = {@code splice_off_in};
 * {@code rw_flags} = {@code msg_flags} = {@code timeout_flags} = {@code accept_flags} = {@code cancel_flags} =
 * {@code poll32_events}; {@code buf_index} = {@code buf_group}; {@code splice_fd_in} = {@code file_index} =
 * {@code addr_len}. The ABI test checks those aliases against the header.
 *
 * <p>Memory the SQE points at ({@code addr}) must stay valid until the operation completes, except where
 * {@link IoUringConstants#IORING_FEAT_SUBMIT_STABLE} lets the kernel copy it at submission (e.g. timeouts).
 */
public final class IoUringSqe {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("opcode"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("ioprio"),       // also the send/recv/accept flag word (IORING_RECVSEND_*)
            JAVA_INT.withName("fd"),
            JAVA_LONG.withName("off"),           // union: off | addr2 | {cmd_op, __pad1}
            JAVA_LONG.withName("addr"),          // union: addr | splice_off_in
            JAVA_INT.withName("len"),
            JAVA_INT.withName("rw_flags"),       // union of the per-opcode flag words
            JAVA_LONG.withName("user_data"),
            JAVA_SHORT.withName("buf_index"),    // packed union: buf_index | buf_group
            JAVA_SHORT.withName("personality"),
            JAVA_INT.withName("splice_fd_in"),   // union: splice_fd_in | file_index | addr_len
            JAVA_LONG.withName("addr3"),
            JAVA_LONG.withName("__pad2")
    ).withName("io_uring_sqe");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle OPCODE = LAYOUT.varHandle(groupElement("opcode"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));
    private static final VarHandle IOPRIO = LAYOUT.varHandle(groupElement("ioprio"));
    private static final VarHandle FD = LAYOUT.varHandle(groupElement("fd"));
    private static final VarHandle OFF = LAYOUT.varHandle(groupElement("off"));
    private static final VarHandle ADDR = LAYOUT.varHandle(groupElement("addr"));
    private static final VarHandle LEN = LAYOUT.varHandle(groupElement("len"));
    private static final VarHandle OP_FLAGS = LAYOUT.varHandle(groupElement("rw_flags"));
    private static final VarHandle USER_DATA = LAYOUT.varHandle(groupElement("user_data"));
    private static final VarHandle BUF_INDEX = LAYOUT.varHandle(groupElement("buf_index"));
    private static final VarHandle PERSONALITY = LAYOUT.varHandle(groupElement("personality"));
    private static final VarHandle FILE_INDEX = LAYOUT.varHandle(groupElement("splice_fd_in"));
    private static final VarHandle ADDR3 = LAYOUT.varHandle(groupElement("addr3"));

    private final MemorySegment slot;

    /** A flyweight over {@code slot}, which must be at least {@link #SIZE} bytes and 8-byte aligned. */
    public IoUringSqe(MemorySegment slot) {
        if (slot.byteSize() < SIZE) {
            throw new IllegalArgumentException("an SQE slot needs " + SIZE + " bytes, got " + slot.byteSize());
        }
        this.slot = slot;
    }

    /** The slot's memory (64 or 128 bytes). */
    public MemorySegment segment() {
        return slot;
    }

    /** Zeroes the whole slot; reused slots would otherwise carry stale buf_index/personality/addr3. */
    public IoUringSqe clear() {
        slot.fill((byte) 0);
        return this;
    }

    // ---- Field setters --------------------------------------------------------------------------------------

    public IoUringSqe opcode(int opcode) {
        OPCODE.set(slot, 0L, (byte) opcode);
        return this;
    }

    /** Sets {@code IOSQE_*} flags, replacing any there. */
    public IoUringSqe flags(int iosqeFlags) {
        FLAGS.set(slot, 0L, (byte) iosqeFlags);
        return this;
    }

    /** ORs {@code IOSQE_*} flags in, e.g. {@code IOSQE_IO_LINK} after a prep helper. */
    public IoUringSqe addFlags(int iosqeFlags) {
        return flags(flags() | iosqeFlags);
    }

    public IoUringSqe ioprio(int ioprio) {
        IOPRIO.set(slot, 0L, (short) ioprio);
        return this;
    }

    public IoUringSqe fd(int fd) {
        FD.set(slot, 0L, fd);
        return this;
    }

    /** {@code off}, alias {@code addr2}. */
    public IoUringSqe off(long off) {
        OFF.set(slot, 0L, off);
        return this;
    }

    public IoUringSqe addr(long address) {
        ADDR.set(slot, 0L, address);
        return this;
    }

    public IoUringSqe len(int len) {
        LEN.set(slot, 0L, len);
        return this;
    }

    /** The per-opcode flag word: rw_flags / msg_flags / timeout_flags / accept_flags / cancel_flags / poll32. */
    public IoUringSqe opFlags(int flags) {
        OP_FLAGS.set(slot, 0L, flags);
        return this;
    }

    /** Returned unchanged in the CQE; the only link between a completion and its request. */
    public IoUringSqe userData(long userData) {
        USER_DATA.set(slot, 0L, userData);
        return this;
    }

    /** Registered-buffer index (fixed ops), alias {@code buf_group} with {@code IOSQE_BUFFER_SELECT}. */
    public IoUringSqe bufIndex(int index) {
        BUF_INDEX.set(slot, 0L, (short) index);
        return this;
    }

    public IoUringSqe personality(int personality) {
        PERSONALITY.set(slot, 0L, (short) personality);
        return this;
    }

    /** {@code file_index}, alias {@code splice_fd_in}; {@code addr_len} shares its low 16 bits. */
    public IoUringSqe fileIndex(int value) {
        FILE_INDEX.set(slot, 0L, value);
        return this;
    }

    public IoUringSqe addr3(long value) {
        ADDR3.set(slot, 0L, value);
        return this;
    }

    // ---- Field getters (mostly for tests and diagnostics) ----------------------------------------------------

    public int opcode() {
        return Byte.toUnsignedInt((byte) OPCODE.get(slot, 0L));
    }

    public int flags() {
        return Byte.toUnsignedInt((byte) FLAGS.get(slot, 0L));
    }

    public int ioprio() {
        return Short.toUnsignedInt((short) IOPRIO.get(slot, 0L));
    }

    public int fd() {
        return (int) FD.get(slot, 0L);
    }

    public long off() {
        return (long) OFF.get(slot, 0L);
    }

    public long addr() {
        return (long) ADDR.get(slot, 0L);
    }

    public int len() {
        return (int) LEN.get(slot, 0L);
    }

    public int opFlags() {
        return (int) OP_FLAGS.get(slot, 0L);
    }

    public long userData() {
        return (long) USER_DATA.get(slot, 0L);
    }

    public int bufIndex() {
        return Short.toUnsignedInt((short) BUF_INDEX.get(slot, 0L));
    }

    public int fileIndex() {
        return (int) FILE_INDEX.get(slot, 0L);
    }

    // ---- liburing-style preparation helpers ------------------------------------------------------------------

    /** The common shape of liburing's {@code io_uring_prep_rw}. */
    private IoUringSqe rw(int opcode, int fd, long addr, int len, long off) {
        return opcode(opcode).fd(fd).addr(addr).len(len).off(off);
    }

    /** {@code IORING_OP_NOP}: completes at once with res 0; handy for wake-ups and tests. */
    public IoUringSqe prepNop() {
        return opcode(IORING_OP_NOP);
    }

    /** {@code IORING_OP_READ} into {@code buf} (also reads an eventfd: 8 bytes, offset ignored). */
    public IoUringSqe prepRead(int fd, MemorySegment buf, long offset) {
        return rw(IORING_OP_READ, fd, buf.address(), length(buf), offset);
    }

    public IoUringSqe prepWrite(int fd, MemorySegment buf, long offset) {
        return rw(IORING_OP_WRITE, fd, buf.address(), length(buf), offset);
    }

    /**
     * {@code IORING_OP_READ_FIXED}: reads into {@code buf}, which must lie inside registered buffer
     * {@code bufIndex} (else the CQE carries {@code -EFAULT}). Works on sockets too; the offset is then ignored.
     */
    public IoUringSqe prepReadFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        return rw(IORING_OP_READ_FIXED, fd, buf.address(), length(buf), offset).bufIndex(bufIndex);
    }

    /** {@code IORING_OP_WRITE_FIXED} from a slice of registered buffer {@code bufIndex}. */
    public IoUringSqe prepWriteFixed(int fd, MemorySegment buf, long offset, int bufIndex) {
        return rw(IORING_OP_WRITE_FIXED, fd, buf.address(), length(buf), offset).bufIndex(bufIndex);
    }

    /** {@code IORING_OP_SEND}; {@code msgFlags} are send(2) flags (e.g. {@code MSG_NOSIGNAL}, {@code MSG_WAITALL}). */
    public IoUringSqe prepSend(int sockFd, MemorySegment buf, int msgFlags) {
        return rw(IORING_OP_SEND, sockFd, buf.address(), length(buf), 0).opFlags(msgFlags);
    }

    /** {@link #prepSend(int, MemorySegment, int)} of {@code len} bytes at {@code offset} in {@code buf}, no slice. */
    public IoUringSqe prepSend(int sockFd, MemorySegment buf, long offset, int len, int msgFlags) {
        java.util.Objects.checkFromIndexSize(offset, len, buf.byteSize());
        return rw(IORING_OP_SEND, sockFd, buf.address() + offset, len, 0).opFlags(msgFlags);
    }

    /**
     * {@code IORING_OP_SENDMSG}: one gather write of the iovecs {@code msghdr} points at ({@link Msghdr}), as
     * liburing's {@code io_uring_prep_sendmsg} (len 1). The msghdr and its iovecs stay valid until the completion.
     */
    public IoUringSqe prepSendmsg(int sockFd, MemorySegment msghdr, int msgFlags) {
        return rw(IORING_OP_SENDMSG, sockFd, msghdr.address(), 1, 0).opFlags(msgFlags);
    }

    /** {@code IORING_OP_RECVMSG}: one scatter receive into the iovecs of {@code msghdr} ({@link Msghdr}). */
    public IoUringSqe prepRecvmsg(int sockFd, MemorySegment msghdr, int msgFlags) {
        return rw(IORING_OP_RECVMSG, sockFd, msghdr.address(), 1, 0).opFlags(msgFlags);
    }

    /** {@code IORING_OP_RECV}; {@code msgFlags} are recv(2) flags. */
    public IoUringSqe prepRecv(int sockFd, MemorySegment buf, int msgFlags) {
        return rw(IORING_OP_RECV, sockFd, buf.address(), length(buf), 0).opFlags(msgFlags);
    }

    /**
     * {@code IORING_OP_SEND_ZC} (6.0+). Produces a result CQE (with {@code IORING_CQE_F_MORE} when a
     * notification follows) and later a notification CQE ({@code IORING_CQE_F_NOTIF}) with the same user_data;
     * the buffer may be reused only after the notification. {@code zcFlags} go to ioprio
     * (e.g. {@code IORING_SEND_ZC_REPORT_USAGE}).
     */
    public IoUringSqe prepSendZc(int sockFd, MemorySegment buf, int msgFlags, int zcFlags) {
        return rw(IORING_OP_SEND_ZC, sockFd, buf.address(), length(buf), 0).opFlags(msgFlags).ioprio(zcFlags);
    }

    /** {@link #prepSendZc} from registered buffer {@code bufIndex} ({@code IORING_RECVSEND_FIXED_BUF}). */
    public IoUringSqe prepSendZcFixed(int sockFd, MemorySegment buf, int msgFlags, int zcFlags, int bufIndex) {
        return prepSendZc(sockFd, buf, msgFlags, zcFlags | IORING_RECVSEND_FIXED_BUF).bufIndex(bufIndex);
    }

    /** {@link #prepSendZcFixed(int, MemorySegment, int, int, int)} of {@code len} bytes at {@code offset}, no slice. */
    public IoUringSqe prepSendZcFixed(int sockFd, MemorySegment buf, long offset, int len, int msgFlags, int zcFlags,
                                      int bufIndex) {
        java.util.Objects.checkFromIndexSize(offset, len, buf.byteSize());
        return rw(IORING_OP_SEND_ZC, sockFd, buf.address() + offset, len, 0).opFlags(msgFlags)
                .ioprio(zcFlags | IORING_RECVSEND_FIXED_BUF).bufIndex(bufIndex);
    }

    /**
     * {@code IORING_OP_ACCEPT}; {@code addr}/{@code addrLen} may be {@link MemorySegment#NULL}, else a
     * sockaddr buffer and a {@code socklen_t} holding its size (both must stay valid until completion).
     * {@code flags} are accept4(2) flags ({@code SOCK_NONBLOCK}, {@code SOCK_CLOEXEC}). res = the new fd.
     */
    public IoUringSqe prepAccept(int listenFd, MemorySegment addr, MemorySegment addrLen, int flags) {
        return rw(IORING_OP_ACCEPT, listenFd, addr.address(), 0, addrLen.address()).opFlags(flags);
    }

    /** {@code IORING_OP_CONNECT} to the sockaddr in {@code addr} ({@code addrLen} bytes, passed in {@code off}). */
    public IoUringSqe prepConnect(int sockFd, MemorySegment addr, int addrLen) {
        return rw(IORING_OP_CONNECT, sockFd, addr.address(), 0, addrLen);
    }

    /**
     * {@code IORING_OP_POLL_ADD} for {@code pollMask} ({@code POLLIN} = 1, ...); one-shot unless {@code len}
     * is later given {@code IORING_POLL_ADD_MULTI}.
     */
    public IoUringSqe prepPollAdd(int fd, int pollMask) {
        return rw(IORING_OP_POLL_ADD, fd, 0, 0, 0).opFlags(pollMask);
    }

    /**
     * {@code IORING_OP_TIMEOUT}: completes with {@code -ETIME} when {@code timespec} (a {@link Timespec})
     * elapses, or with 0 once {@code count} other completions happened (0 = pure timer).
     */
    public IoUringSqe prepTimeout(MemorySegment timespec, int count, int timeoutFlags) {
        return rw(IORING_OP_TIMEOUT, -1, timespec.address(), 1, count).opFlags(timeoutFlags);
    }

    /**
     * {@code IORING_OP_ASYNC_CANCEL} of the request whose user_data is {@code targetUserData}. The cancel's CQE
     * reports 0, {@code -ENOENT} (not found) or {@code -EALREADY} (running, may still complete); the cancelled
     * request completes with {@code -ECANCELED}.
     */
    public IoUringSqe prepCancel(long targetUserData, int cancelFlags) {
        return rw(IORING_OP_ASYNC_CANCEL, -1, targetUserData, 0, 0).opFlags(cancelFlags);
    }

    private static int length(MemorySegment buf) {
        long size = buf.byteSize();
        if (size > 0xFFFF_FFFFL) {
            throw new IllegalArgumentException("an SQE length is 32-bit; buffer has " + size + " bytes");
        }
        return (int) size;
    }
}

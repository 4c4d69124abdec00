package dev.rivulet.rio.uring.sys;

/**
 * The errno values the io_uring layer and its callers branch on (x86-64 / aarch64 Linux, {@code <errno.h>}).
 *
 * <p>CQE results carry these negated ({@code res = -errno}); the ABI test checks every value against the
 * installed headers.
 */
public final class Errno {

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int EINVAL = 22;
    /** The system-wide table of open files is full. */
    public static final int ENFILE = 23;
    /** This process has as many descriptors open as {@code RLIMIT_NOFILE} allows. */
    public static final int EMFILE = 24;
    public static final int EPIPE = 32;
    public static final int ENOSYS = 38;
    public static final int ETIME = 62;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int EOPNOTSUPP = 95;
    /** accept: a connection was aborted (the peer reset it) before it was accepted. */
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ECANCELED = 125;

    private Errno() {
    }

    /** The symbolic name ({@code "EAGAIN"}), or {@code "errno N"} when libc cannot name it. */
    public static String name(int errno) {
        return Libc.errnoName(errno).orElse("errno " + errno);
    }

    /** libc's description ({@code "Resource temporarily unavailable"}), or {@code "unknown error"}. */
    public static String describe(int errno) {
        return Libc.errnoDescription(errno).orElse("unknown error");
    }
}

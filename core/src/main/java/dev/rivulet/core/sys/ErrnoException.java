package dev.rivulet.core.sys;

/**
 * A failed Linux system call or libc function, with the errno it reported.
 *
 * <p>Local to the binding layers on purpose: a transport maps it to Rivulet's public error types, keeping the
 * numeric code ({@link #errno()}) so nothing is lost on the way.
 */
public final class ErrnoException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;

    public ErrnoException(String function, int errno) {
        super(function + " failed: " + Errno.name(errno) + " (" + Errno.describe(errno) + ")");
        this.function = function;
        this.errno = errno;
    }

    /** Throws for a kernel-style result ({@code -errno} when negative), else returns it unchanged. */
    public static int check(String function, int result) {
        if (result < 0) {
            throw new ErrnoException(function, -result);
        }
        return result;
    }

    /** The call that failed, e.g. {@code "io_uring_enter"}. */
    public String function() {
        return function;
    }

    /** The positive errno value. */
    public int errno() {
        return errno;
    }

    /** Symbolic errno name, e.g. {@code "EBUSY"}. */
    public String errnoName() {
        return Errno.name(errno);
    }

    /**
     * Whether trying again later can succeed: {@code EAGAIN}/{@code EINTR}, and {@code EBUSY}, which io_uring
     * returns while overflowed completions wait to be reaped.
     */
    public boolean isRetryable() {
        return errno == Errno.EAGAIN || errno == Errno.EINTR || errno == Errno.EBUSY;
    }
}

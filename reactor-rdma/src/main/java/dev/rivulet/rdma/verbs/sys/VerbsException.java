package dev.rivulet.rdma.verbs.sys;

import dev.rivulet.core.sys.Errno;

/**
 * A failed libibverbs or librdmacm call, keeping the native error number so callers can classify it.
 *
 * <p>Data-path calls return their C results (a post's {@code ENOMEM} is back-pressure and must stay allocation-free);
 * set-up calls that return NULL or -1 with {@code errno} throw this instead.
 */
public final class VerbsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    /**
     * @param call  the C function, e.g. {@code "ibv_reg_mr"}
     * @param errno the positive error number (0 when the call failed without setting one)
     */
    public VerbsException(String call, int errno) {
        super(call + " failed: " + (errno == 0 ? "no error number" : Errno.describe(errno) + " (errno " + errno + ")"));
        this.call = call;
        this.errno = errno;
    }

    /** Returns {@code rc} when it is 0, else throws for it: for calls that return 0 or a positive errno. */
    public static int check(String call, int rc) {
        if (rc != 0) {
            throw new VerbsException(call, Math.abs(rc));
        }
        return rc;
    }

    /** The C function that failed. */
    public String call() {
        return call;
    }

    /** The positive error number, comparable with {@link Errno}'s constants. */
    public int errno() {
        return errno;
    }
}

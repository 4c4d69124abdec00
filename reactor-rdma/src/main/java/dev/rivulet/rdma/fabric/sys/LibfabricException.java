package dev.rivulet.rdma.fabric.sys;

/**
 * A failed libfabric call, keeping the native error number so callers can classify it.
 *
 * <p>The binding itself returns raw codes, as C does, because {@code -FI_EAGAIN} on a post is flow control and
 * must stay allocation-free; {@link #check} is for setup paths where any negative value is a failure.
 */
public final class LibfabricException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    /**
     * @param call  the C function, e.g. {@code "fi_domain"}
     * @param errno the positive fabric error number ({@code -ret})
     */
    public LibfabricException(String call, int errno) {
        super(call + " failed: " + Libfabric.strerror(errno) + " (-" + errno + ")");
        this.call = call;
        this.errno = errno;
    }

    /** Returns {@code ret} when it is not negative, else throws for {@code -ret}. */
    public static int check(String call, int ret) {
        if (ret < 0) {
            throw new LibfabricException(call, -ret);
        }
        return ret;
    }

    /** As {@link #check(String, int)} for {@code ssize_t} results. */
    public static long check(String call, long ret) {
        if (ret < 0) {
            throw new LibfabricException(call, (int) -ret);
        }
        return ret;
    }

    /** The C function that failed. */
    public String call() {
        return call;
    }

    /** The positive fabric error number, comparable with {@code FiConstants.FI_E*}. */
    public int errno() {
        return errno;
    }

    /** Whether retrying after driving progress can succeed ({@code FI_EAGAIN}). */
    public boolean isRetryable() {
        return errno == FiConstants.FI_EAGAIN;
    }
}

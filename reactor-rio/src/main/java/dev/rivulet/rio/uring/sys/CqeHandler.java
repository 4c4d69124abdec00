package dev.rivulet.rio.uring.sys;

/**
 * Receives completions from {@link IoUring#forEachCompletion}. The three values are copied out of the CQE before
 * the call and passed as primitives, so reaping allocates nothing and nothing points back into the ring.
 */
@FunctionalInterface
public interface CqeHandler {

    /**
     * @param userData the SQE's user_data
     * @param res      the result ({@code >= 0}) or {@code -errno}
     * @param flags    {@code IORING_CQE_F_*} bits
     */
    void onCompletion(long userData, int res, int flags);
}

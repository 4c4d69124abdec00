package dev.rivulet.core.loop;

import java.util.concurrent.locks.LockSupport;

/**
 * How a parked loop sleeps and how others wake it. The default parks the thread; a native backend replaces it to
 * block on its completion queue's wait object (an fd in epoll, {@code io_uring_enter} with a timeout) so that both a
 * completion and a submission end the sleep.
 */
public interface Waiter {

    /** Sleeps up to {@code nanos} on the loop thread. */
    void await(Thread loopThread, long nanos);

    /** Ends a current or the next {@link #await}; called from any thread. */
    void wake(Thread loopThread);

    Waiter PARK = new Waiter() {
        @Override
        public void await(Thread loopThread, long nanos) {
            LockSupport.parkNanos(this, nanos);
        }

        @Override
        public void wake(Thread loopThread) {
            LockSupport.unpark(loopThread);
        }
    };
}

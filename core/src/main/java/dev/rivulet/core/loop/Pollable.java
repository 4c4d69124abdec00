package dev.rivulet.core.loop;

/** Something a progress loop drives: a completion queue, an endpoint's pending FIFO. Called on the loop thread. */
public interface Pollable {

    /** Does whatever work is ready and returns how much (0 when there was none). */
    int poll();
}

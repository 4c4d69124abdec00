package dev.rivulet.core;

/** Ordering guarantees between operations on one endpoint (UCT exposes these so upper layers know when to fence). */
public enum Ordering {
    /** Messages are delivered in the order they were sent. */
    SEND_AFTER_SEND,
    /** A put is visible at the target only after the puts issued before it. */
    PUT_AFTER_PUT,
    /** RMA and atomics issued after a send are applied after that send was delivered. */
    RMA_AFTER_SEND,
    /** Operations complete locally in the order they were issued. */
    COMPLETION_IN_ORDER
}

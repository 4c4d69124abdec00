package dev.rivulet.core;

/** The operations a transport may offer; {@link Capabilities#operations()} says which it does. */
public enum Operation {
    SEND,
    RECEIVE,
    PUT,
    GET,
    ATOMIC_ADD_64,
    ATOMIC_FETCH_ADD_64,
    ATOMIC_COMPARE_SWAP_64,
    ATOMIC_SWAP_64,
    ATOMIC_ADD_32,
    ATOMIC_FETCH_ADD_32,
    ATOMIC_COMPARE_SWAP_32,
    ATOMIC_SWAP_32,
    FLUSH,
    FENCE
}

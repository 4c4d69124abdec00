package dev.rivulet.core.error;

/** Marks the failures after which repeating the same operation may succeed (as RSocket's retryable errors). */
public interface Retryable {
}

/**
 * What a polling thread does when it finds no work: {@link dev.rivulet.core.progress.IdleStrategy} and the default
 * {@link dev.rivulet.core.progress.BackoffIdleStrategy} (spin, yield, then park longer and longer).
 */
@NullMarked
package dev.rivulet.core.progress;

import org.jspecify.annotations.NullMarked;

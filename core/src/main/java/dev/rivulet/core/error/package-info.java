/**
 * The typed, unchecked exceptions every operation fails with, all {@link dev.rivulet.core.error.TransportException}s
 * that keep the provider's native code and message and say whether a retry can succeed.
 */
@NullMarked
package dev.rivulet.core.error;

import org.jspecify.annotations.NullMarked;

/**
 * Accessors to the package-private operations of the API types (pinning a region, checking an incoming key, creating
 * a domain), the JDK's "shared secrets" pattern, and small helpers of Rivulet's own modules. Exported only to
 * them: third-party transports use {@link dev.rivulet.core.engine.WireMemory} instead.
 */
@NullMarked
package dev.rivulet.core.internal;

import org.jspecify.annotations.NullMarked;

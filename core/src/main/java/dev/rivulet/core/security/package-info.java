/**
 * Who may connect and what a stranger may cost: shared-secret authentication, TLS, and the admission and memory
 * bounds of listeners ({@link dev.rivulet.core.security.SecuritySettings}, the {@code security.*} options).
 */
@NullMarked
package dev.rivulet.core.security;

import org.jspecify.annotations.NullMarked;

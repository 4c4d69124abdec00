/**
 * The Registered I/O transport (Windows): one RIO completion queue per polling thread, the socket channels it
 * drives and the listener; the framing, credits and RMA are {@code dev.rivulet.rio.stream}'s, the Winsock binding
 * {@code dev.rivulet.rio.windows.sys}'s.
 */
@NullMarked
package dev.rivulet.rio.windows;

import org.jspecify.annotations.NullMarked;

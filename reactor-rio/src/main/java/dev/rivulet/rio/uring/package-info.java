/**
 * The io_uring transport (Linux): one ring per polling thread, the socket channels it drives and the listener;
 * the framing, credits and RMA over the byte stream are {@code dev.rivulet.rio.stream}'s, the kernel binding
 * {@code dev.rivulet.rio.uring.sys}'s.
 */
@NullMarked
package dev.rivulet.rio.uring;

import org.jspecify.annotations.NullMarked;

/**
 * The shared-memory transport between processes of one host ({@code shm://NAME}): connection set-up over a Unix
 * domain socket, then record rings, staging pools and mapped windows in a file both processes map, with doorbells
 * that wake a sleeping polling thread. Its system calls are in {@code dev.rivulet.rio.shm.sys}.
 */
@NullMarked
package dev.rivulet.rio.shm;

import org.jspecify.annotations.NullMarked;

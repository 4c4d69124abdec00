/**
 * The few Linux system calls the shared-memory transport cannot make through the JDK, bound with
 * {@code java.lang.foreign} only: {@code futex} (wake) and {@code futex_waitv} (one sleep on many words) through
 * libc's {@code syscall}, libc's {@code process_vm_readv}/{@code process_vm_writev} (cross-memory attach), and
 * {@code prctl(PR_SET_DUMPABLE)} for the transport's hardening. Files, mappings and sockets go through
 * {@code java.nio}; libc itself, the page size and {@code fcntl} are the shared native layer's
 * ({@link dev.rivulet.core.sys}).
 *
 * <p>Failures surface as {@link dev.rivulet.core.sys.ErrnoException}, errno captured as everywhere in
 * {@link dev.rivulet.core.sys.Downcalls}.
 */
@NullMarked
package dev.rivulet.rio.shm.sys;

import org.jspecify.annotations.NullMarked;

package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.SequenceLayout;

/**
 * The opaque {@code pthread_mutex_t} / {@code pthread_cond_t} members some verbs structs carry. Only their sizes matter
 * to the binding (fields after them move with them): glibc makes the mutex 40 bytes on x86-64 and 48 on aarch64,
 * the condition variable 48 on both. The x86-64 sizes are checked by {@code VerbsAbiTest}; the aarch64 ones are
 * glibc's {@code __SIZEOF_PTHREAD_MUTEX_T} and have not been run.
 */
final class Pthread {

    private static final boolean AARCH64 = "aarch64".equals(System.getProperty("os.arch"));

    /** {@code sizeof(pthread_mutex_t)} on this platform. */
    static final long MUTEX_SIZE = AARCH64 ? 48 : 40;
    /** {@code sizeof(pthread_cond_t)}. */
    static final long COND_SIZE = 48;

    private Pthread() {
    }

    static SequenceLayout mutex(String name) {
        return MemoryLayout.sequenceLayout(MUTEX_SIZE, JAVA_BYTE).withName(name);
    }

    static SequenceLayout cond(String name) {
        return MemoryLayout.sequenceLayout(COND_SIZE, JAVA_BYTE).withName(name);
    }
}

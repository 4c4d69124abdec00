package dev.rivulet.rio.shm;

import dev.rivulet.core.memory.Grant;

/** An answer (or an unmap notice) this side owes the peer, written in order when the ring has room (recycled). */
final class OwedAnswer {
    int kind;
    /** The request it answers. */
    long id;
    /** An atomic's previous value, a copy's address, a mapping's id, or the mapping an UNMAP names. */
    long value;
    /** Where a DATA or STAGED answer's bytes start, in the peer's view of the grant. */
    long address;
    /** A MAPPED answer's offset in the shared file. */
    long fileOffset;
    long length;
    int fd;
    int rights;
    /** The grant a DATA, STAGED or MAPPED answer is about (pinned). */
    Grant grant;
    /** A waiting DATA answer's bytes, copied when the get was served. */
    byte[] data;

    OwedAnswer set(int kind, long id) {
        this.kind = kind;
        this.id = id;
        return this;
    }

    void clear() {
        grant = null;
        data = null;
    }
}

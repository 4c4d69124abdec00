package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.Frames;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * The fragments of one large payload while they arrive ({@link Frames#FOLLOWS}): each is held (retained) until the
 * last one, then all are copied once into one buffer that reads as if the payload had come in one frame. The session
 * bounds what all its reassemblies hold together. Polling thread only.
 */
final class Reassembly {

    private final List<Buffer> parts = new ArrayList<>();
    private final int type;
    private long bytes;
    private boolean discarding;

    /** {@code type}: the type of the first fragment (a request, or PAYLOAD). */
    Reassembly(int type) {
        this.type = type;
    }

    int type() {
        return type;
    }

    /** Whether the payload was refused and its remaining fragments are only counted off until the last. */
    boolean isDiscarding() {
        return discarding;
    }

    /** Gives back what is held; the fragments still to come are dropped as they arrive. */
    void discard() {
        release();
        discarding = true;
    }

    /** The bytes {@code fragment} adds to the whole (the first one with its header and metadata). */
    long sizeOf(Buffer fragment) {
        return fragment.length() - (parts.isEmpty() ? 0 : Frames.HEADER);
    }

    /** Holds a fragment until the whole payload is there. */
    void add(Buffer fragment) {
        long data = sizeOf(fragment);
        parts.add(fragment.retain());
        bytes += data;
    }

    /** The bytes held so far. */
    long bytes() {
        return bytes;
    }

    /**
     * The whole frame: the first fragment's header and metadata, every fragment's data, the flags of a frame that
     * came in one piece ({@code lastFlags} carries whether it completes the stream). The fragments are released.
     */
    Buffer assemble(MemoryDomain memory, int lastFlags) {
        Buffer whole = memory.allocate((int) bytes);
        MemorySegment to = whole.capacitySegment();
        long at = 0;
        for (int i = 0; i < parts.size(); i++) {
            Buffer p = parts.get(i);
            long skip = i == 0 ? 0 : Frames.HEADER;
            MemorySegment.copy(p.capacitySegment(), skip, to, at, p.length() - skip);
            at += p.length() - skip;
        }
        int firstFlags = Frames.flags(to);
        to.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 5,
                (byte) ((firstFlags & ~Frames.FOLLOWS) | (lastFlags & Frames.COMPLETE)));
        int total = (int) bytes;
        release();
        return whole.length(total);
    }

    void release() {
        parts.forEach(Buffer::release);
        parts.clear();
        bytes = 0;
    }
}

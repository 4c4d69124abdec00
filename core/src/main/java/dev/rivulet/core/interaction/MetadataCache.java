package dev.rivulet.core.interaction;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Decodes the metadata of arriving frames, reusing the previous result when a frame carries the same bytes again (a
 * client sending one route over and over): {@link Metadata} is immutable, so equal bytes may share one object.
 * Polling thread only.
 */
final class MetadataCache {

    /** Longest metadata worth remembering; longer ones are rarely repeated byte for byte. */
    private static final int REMEMBER = 256;

    private byte[] lastBytes = new byte[0];
    private Metadata last = Metadata.EMPTY;

    Metadata decode(MemorySegment frame, long offset, int length) {
        if (length == 0) {
            return Metadata.EMPTY;
        }
        if (length == lastBytes.length
                && MemorySegment.mismatch(frame, offset, offset + length, MemorySegment.ofArray(lastBytes), 0,
                length) == -1) {
            return last;
        }
        Metadata m = MetadataCodec.decode(frame, offset, length);
        if (length <= REMEMBER) {
            lastBytes = frame.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
            last = m;
        }
        return m;
    }
}

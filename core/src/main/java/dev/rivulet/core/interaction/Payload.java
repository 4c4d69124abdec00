package dev.rivulet.core.interaction;

import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * What a request or an answer carries: data and {@link Metadata}.
 *
 * <p>A payload that arrived is <em>lent</em> exactly as a buffer from {@code Endpoint.receive()} is: its data sits
 * in the received message's registered memory and is valid for the duration of the {@code onNext} (or handler call)
 * it is handed to; to keep it longer, {@link #retain()} it there and {@link #release()} it later. As with those
 * buffers, the object of a payload that was not retained is lent again for a later payload once its call returned.
 * {@link #dataUtf8()} and {@link #dataBytes()} copy the bytes out and need nothing released.
 *
 * <p>A payload built with {@code of(...)} holds its own data: from a {@code String} or {@code byte[]} on the heap,
 * or a registered {@link Buffer} whose reference it takes (the requester or responder releases it once the bytes are
 * on their way, as {@code send(Buffer)} does).
 */
public final class Payload {

    private static final MemorySegment NO_DATA = MemorySegment.ofArray(new byte[0]);

    /*
     * A received payload's metadata, frame and data bounds change when its session lends the object again for a later
     * frame (LentPayloads): only on the polling thread, never once it was kept.
     */
    private Metadata metadata;
    /** Heap or native data of a built payload; null for a received one, whose data lies in {@link #frame}. */
    private final @Nullable MemorySegment data;
    /** The buffer holding the data: a received frame, or the buffer a payload was built from; null for heap data. */
    private @Nullable Buffer frame;
    private int dataOffset;
    private int dataLength;
    /** Whether {@link #frame} is a received message this payload is lent from. */
    private final boolean received;
    /** Whether a received payload is kept past its call ({@link #retain()}, or held by its session): never lent again. */
    private volatile boolean kept;
    /** Whether a received payload was {@link #retain()}ed: its object is the application's from then on. */
    private volatile boolean retained;

    private Payload(Metadata metadata, @Nullable MemorySegment data, @Nullable Buffer frame, int dataOffset,
                    int dataLength, boolean received) {
        this.received = received;
        this.metadata = metadata;
        this.data = data;
        this.frame = frame;
        this.dataOffset = dataOffset;
        this.dataLength = dataLength;
    }

    /** A payload of {@code data} in UTF-8, without metadata. */
    public static Payload of(String data) {
        return of(data.getBytes(StandardCharsets.UTF_8));
    }

    /** A payload of {@code data} (not copied: do not change the array until the payload is sent). */
    public static Payload of(byte[] data) {
        return new Payload(Metadata.EMPTY, MemorySegment.ofArray(data), null, 0, data.length, false);
    }

    /** A payload of the message bytes of {@code data}, taking its reference. */
    public static Payload of(Buffer data) {
        return new Payload(Metadata.EMPTY, null, Objects.requireNonNull(data, "data"), 0, data.length(), false);
    }

    /** A payload without data. */
    public static Payload empty() {
        return new Payload(Metadata.EMPTY, NO_DATA, null, 0, 0, false);
    }

    /** A received payload lent from {@code frame}. */
    static Payload received(Buffer frame, Metadata metadata, int dataOffset, int dataLength) {
        return new Payload(metadata, null, frame, dataOffset, dataLength, true);
    }

    /** This received payload, no longer in use, lent again from {@code frame} (polling thread, see LentPayloads). */
    void lendAgain(Buffer frame, Metadata metadata, int dataOffset, int dataLength) {
        this.frame = frame;
        this.metadata = metadata;
        this.dataOffset = dataOffset;
        this.dataLength = dataLength;
    }

    /** Marks a received payload as kept past its call: its object is never lent for another frame. */
    void keep() {
        if (received && !kept) {
            kept = true;
        }
    }

    /** Whether this received payload was kept past its call. */
    boolean isKept() {
        return kept;
    }

    /**
     * This received payload, held by its session for a handler's answer that is over, may be lent again, unless the
     * application retained it; returns whether it may.
     */
    boolean letGo() {
        if (!received || retained) {
            return false;
        }
        kept = false;
        return true;
    }

    /** This payload's data with {@code metadata} instead of its own. */
    public Payload metadata(Metadata metadata) {
        return new Payload(Objects.requireNonNull(metadata, "metadata"), data, frame, dataOffset, dataLength,
                received);
    }

    /** This payload with its metadata's route set to {@code route}. */
    public Payload route(String route) {
        return metadata(metadata.isEmpty() ? Metadata.route(route) : metadata.toBuilder().route(route).build());
    }

    public Metadata metadata() {
        return metadata;
    }

    /** Shorthand for {@code metadata().route()}. */
    public @Nullable String routeName() {
        return metadata.route();
    }

    public int dataLength() {
        return dataLength;
    }

    /**
     * The data bytes. For a received payload this is a view of registered memory, valid while the payload is: do not
     * keep the segment past the payload's release.
     */
    public MemorySegment data() {
        if (data != null) {
            return data;
        }
        assert frame != null;
        // capacitySegment() checks that the buffer is still held: a payload read after its release fails here.
        return frame.capacitySegment().asSlice(dataOffset, dataLength);
    }

    /** Copies the data bytes into {@code to} at {@code offset}, without making a view of them (nothing allocated). */
    void copyData(MemorySegment to, long offset) {
        if (data != null) {
            MemorySegment.copy(data, 0, to, offset, dataLength);
        } else {
            assert frame != null;
            frame.copyTo(dataOffset, to, offset, dataLength); // checks that the buffer is still held
        }
    }

    /** A copy of the data bytes. */
    public byte[] dataBytes() {
        return data().toArray(ValueLayout.JAVA_BYTE);
    }

    /** The data decoded as UTF-8. */
    public String dataUtf8() {
        return new String(dataBytes(), StandardCharsets.UTF_8);
    }

    /** Keeps a received payload (or one built from a buffer) past the call it was handed to; heap payloads: no-op. */
    public Payload retain() {
        if (frame != null) {
            keep();
            retained = true;
            frame.retain();
        }
        return this;
    }

    /**
     * Gives back a reference taken by {@link #retain()} (or, for a payload built from a buffer, its own); returns
     * whether it was the last. Heap payloads: no-op, false.
     */
    public boolean release() {
        return frame != null && frame.release();
    }

    /** The buffer a payload built from one holds, for whoever sends it; null otherwise. */
    @Nullable Buffer ownBuffer() {
        return received ? null : frame;
    }

    @Override
    public String toString() {
        return "Payload[" + dataLength + " B, " + metadata + "]";
    }
}

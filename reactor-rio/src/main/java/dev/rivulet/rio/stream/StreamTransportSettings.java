package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.rio.StreamOptions;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What every stream transport reads from its configuration ({@link StreamOptions}, under its own prefix), and the
 * capabilities that follow from it.
 */
public record StreamTransportSettings(int maxMessageSize, int stagingBytes, int receiveBytes, int copyLimit,
                                      int maxBatchBytes) {

    public static StreamTransportSettings from(TransportConfig config, StreamOptions options) {
        return new StreamTransportSettings(config.get(options.maxMessageSize()), config.get(options.stagingBytes()),
                config.get(options.receiveBytes()), config.get(options.copyLimit()),
                config.get(options.maxBatchBytes()));
    }

    /** What this side accepts at most, as told to the peer in the handshake. */
    public StreamLimits limits() {
        return new StreamLimits(maxMessageSize, maxBatchBytes);
    }

    /**
     * Every operation (RMA and atomics in software, by the target's progress thread, with the same key, rights and
     * bounds checks as a NIC), ordered as one TCP stream orders them. A send completes once the kernel took its
     * bytes (local completion); a put once the target applied it and answered (remote completion); a flush with a
     * FLUSH frame the peer answers after it processed every frame before it.
     */
    public Capabilities capabilities(String transport, TransportConfig config, double bandwidth, Duration latency) {
        return new Capabilities(transport, EnumSet.allOf(Operation.class), maxMessageSize, copyLimit, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND, Ordering.PUT_AFTER_PUT, Ordering.RMA_AFTER_SEND),
                config.sendQueueDepth(), config.receiveQueueDepth(), bandwidth, latency, Completion.LOCAL,
                Completion.REMOTE, Completion.REMOTE, maxMessageSize, true, 64, true, false);
    }

    /**
     * Software RMA needs no provider registration: the key is the domain's random proposal and peers name offsets in
     * the window ({@link NativeRegistration#checkedInSoftware}: never where this process's memory lies), checked by
     * {@code MemoryDomain.resolveRemote} when a request arrives.
     */
    public static NativeRegistration softwareRegistration(MemorySegment segment, Set<Access> access, long proposedKey) {
        return NativeRegistration.checkedInSoftware(segment, proposedKey, null, null);
    }
}

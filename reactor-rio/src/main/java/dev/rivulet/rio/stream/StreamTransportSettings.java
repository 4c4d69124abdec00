package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.NativeRegistration;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;

/**
 * What every stream transport reads from its configuration, under its own option prefix ({@code uring.},
 * {@code rio.}): {@code maxMessageSize} (16 MiB), {@code stagingBytes} and {@code receiveBytes} (256 KiB each, per
 * connection), {@code copyLimit} (payloads up to it are copied into staging and coalesced, 16 KiB) and
 * {@code maxBatchBytes} (16 KiB); and the capabilities that follow from them.
 */
public record StreamTransportSettings(int maxMessageSize, int stagingBytes, int receiveBytes, int copyLimit,
                                      int maxBatchBytes) {

    public static StreamTransportSettings from(TransportConfig config, String prefix) {
        return new StreamTransportSettings(config.intOption(prefix + "maxMessageSize", 16 << 20),
                config.intOption(prefix + "stagingBytes", 256 << 10),
                config.intOption(prefix + "receiveBytes", 256 << 10),
                config.intOption(prefix + "copyLimit", 16 << 10),
                config.intOption(prefix + "maxBatchBytes", 16 << 10));
    }

    /** What this side accepts at most, as told to the peer in the handshake. */
    public StreamLimits limits() {
        return new StreamLimits(maxMessageSize, maxBatchBytes);
    }

    /**
     * Every operation (RMA and atomics in software, by the target's progress thread, with the same key, rights and
     * bounds checks as a NIC), ordered as one TCP stream orders them.
     */
    public Capabilities capabilities(String transport, TransportConfig config, double bandwidth, Duration latency) {
        return new Capabilities(transport, EnumSet.allOf(Operation.class), maxMessageSize, copyLimit, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND, Ordering.PUT_AFTER_PUT, Ordering.RMA_AFTER_SEND),
                config.sendQueueDepth(), config.receiveQueueDepth(), bandwidth, latency,
                "every earlier message was delivered to the peer's endpoint and every earlier put and atomic was "
                        + "applied to the peer's memory (a FLUSH frame answered after the peer processed everything "
                        + "before it)", maxMessageSize, true, 64, true, false);
    }

    /**
     * Software RMA needs no provider registration: the key is the domain's random proposal and peers name virtual
     * addresses, checked by {@code MemoryDomain.resolveRemote} when a request arrives.
     */
    public static NativeRegistration softwareRegistration(MemorySegment segment, Set<Access> access, long proposedKey) {
        return new NativeRegistration(proposedKey, segment.address(), MemorySegment.NULL, null, null);
    }
}

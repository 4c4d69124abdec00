package dev.rivulet.gpu.ipc;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.staging.DevicePins;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Permission for the peer process of one connection, on the same host, to map a whole device buffer and copy to and
 * from it ({@code DeviceTransfers.grant}): send it {@link #remote()}.
 *
 * <p>The peer maps the memory into its own process, so the exporter cannot take the mapping back: rights and
 * revocation are kept by Rivulet in the peer, through a control word of this grant that the peer counts its
 * mappings and copies in and reads the revocation from. {@link #revoke()} sets the revocation and completes once the
 * peer has closed its mapping with no copy left in flight, or the connection is gone (a peer that died lost its
 * mapping with its process). Grant windows only to processes you trust: the handle is a capability on this host.
 *
 * <p>The buffer stays allocated while the grant lives: closing it frees it only after the revocation completed. The
 * grant revokes itself when the endpoint closes.
 */
public final class DeviceGrant implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DeviceGrant.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration POLL = Duration.ofMillis(10);

    private final DeviceBuffer buffer;
    private final DevicePins pins;
    private final MemoryRegion control;
    private final Grant controlGrant;
    private final DeviceWindow window;
    private final AtomicBoolean revoking = new AtomicBoolean();
    private final Sinks.Empty<Void> revoked = Sinks.empty();
    private volatile boolean connectionClosed;

    private DeviceGrant(DeviceBuffer buffer, DevicePins pins, MemoryRegion control, Grant controlGrant,
                        DeviceWindow window) {
        this.buffer = buffer;
        this.pins = pins;
        this.control = control;
        this.controlGrant = controlGrant;
        this.window = window;
    }

    /**
     * Grants all of {@code buffer} to {@code endpoint}'s peer with {@code rights} (remote read and/or write). May
     * block (exporting the handle, registering the control block).
     */
    static DeviceGrant create(Endpoint endpoint, DeviceMemory memory, DeviceBuffer buffer, DevicePins pins,
                              Access... rights) {
        Set<Access> granted = Access.setOf(rights);
        if (!EnumSet.of(Access.REMOTE_READ, Access.REMOTE_WRITE).containsAll(granted)) {
            throw new InvalidRequestException("a device window grants REMOTE_READ and/or REMOTE_WRITE, not "
                    + granted);
        }
        if (buffer.memory() != memory) {
            throw new InvalidMemoryException("buffer is " + buffer.memory().kind() + " memory of another memory type");
        }
        Availability ipc = memory.ipcAvailability();
        if (!ipc.available()) {
            throw new TransportUnavailableException("device memory cannot be shared between processes: "
                    + ipc.reason());
        }
        if (!pins.tryPin(buffer)) {
            throw new InvalidMemoryException("device buffer is closed");
        }
        MemoryRegion control = null;
        Grant controlGrant = null;
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        try {
            byte[] handle = memory.exportIpc(buffer);
            control = endpoint.memory().allocateRegion(ControlBlock.BYTES, Access.REMOTE_READ,
                    Access.REMOTE_ATOMIC);
            ControlBlock.initialise(control.segment(), token, memory.kind(), handle, buffer.length(), granted);
            controlGrant = endpoint.grant(control.slice(0, ControlBlock.BYTES), Access.REMOTE_READ,
                    Access.REMOTE_ATOMIC);
            DeviceWindow window = new DeviceWindow(HostIdentity.current(), memory.kind(), token, handle,
                    buffer.length(), 0, buffer.length(), granted, controlGrant.remote());
            IpcExports.add(token, buffer, handle);
            DeviceGrant g = new DeviceGrant(buffer, pins, control, controlGrant, window);
            endpoint.onClose().subscribe(null, e -> g.connectionClosed(), g::connectionClosed);
            return g;
        } catch (RuntimeException | Error e) {
            if (controlGrant != null) {
                controlGrant.close();
            }
            if (control != null) {
                control.close();
            }
            pins.unpin(buffer);
            throw e;
        }
    }

    /** The window to send to the peer: the whole buffer with the granted rights. */
    public DeviceWindow remote() {
        if (revoking.get()) {
            throw new ResourceClosedException("device grant was revoked");
        }
        return window;
    }

    public DeviceBuffer buffer() {
        return buffer;
    }

    public boolean isRevoked() {
        return revoking.get();
    }

    /**
     * Revokes: the peer's next copy is refused and its mapping closes once its copies in flight ended. Completes
     * when the peer can no longer touch the memory (its mapping closed, or the connection is gone); the buffer's pin
     * is given back then. Idempotent; every call returns the same completion.
     */
    public Mono<Void> revoke() {
        if (revoking.compareAndSet(false, true)) {
            ControlBlock.revoke(control.segment());
            IpcExports.remove(window.token());
            Flux.interval(Duration.ZERO, POLL, Schedulers.parallel())
                    .filter(t -> connectionClosed || ControlBlock.idle(ControlBlock.word(control.segment())))
                    .next()
                    .publishOn(Schedulers.boundedElastic())
                    .subscribe(t -> release(), e -> {
                        log.warn("revoking {} failed", window, e);
                        release();
                    });
        }
        return revoked.asMono();
    }

    /** Completes once the grant is revoked and the peer can no longer touch the memory; starts nothing. */
    public Mono<Void> onRevoked() {
        return revoked.asMono();
    }

    /** Revokes without waiting ({@link #revoke()}). */
    @Override
    public void close() {
        revoke();
    }

    private void connectionClosed() {
        connectionClosed = true;
        revoke();
    }

    private void release() {
        try {
            controlGrant.close();
            control.close();
        } catch (RuntimeException e) {
            log.warn("closing the control block of {} failed", window, e);
        } finally {
            pins.unpin(buffer);
            revoked.tryEmitEmpty();
        }
    }

    @Override
    public String toString() {
        return "DeviceGrant[" + window + ", buffer=" + buffer + (revoking.get() ? ", revoked" : "") + "]";
    }
}

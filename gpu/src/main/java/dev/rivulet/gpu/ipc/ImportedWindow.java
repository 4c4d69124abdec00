package dev.rivulet.gpu.ipc;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.PeerMapping;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Arrays;

/**
 * One granted allocation as the importer holds it: the mapping opened on first use (verified against the exporter's
 * control block first), the local transfers using it, and whether the exporter's control word counts it as mapped.
 * Guarded by the {@link IpcPath} that owns it.
 */
final class ImportedWindow {

    private static final Duration VERIFY_TIMEOUT = Duration.ofSeconds(30);

    final DeviceWindow grant;
    final RemoteMemory word;
    /** Local transfers between their acquire and their release. */
    int users;
    /** The control word counts this mapping ({@link ControlBlock#MAPPED}) and must be told when it closes. */
    boolean counted;
    /** The exporter revoked, the window was refused, or this importer is closing: close once unused. */
    boolean ending;
    /** The exporter revoked: later transfers are refused as such. */
    boolean revoked;
    boolean closed;
    boolean pollInFlight;
    /** Ended transfers still counted in the control word: taken back with the next count or the next poll. */
    long owed;
    private @Nullable Mono<PeerMapping> opening;
    private volatile ControlBlock.@Nullable Granted granted;
    private volatile @Nullable PeerMapping mapping;

    ImportedWindow(DeviceWindow grant) {
        this.grant = grant;
        this.word = grant.control().slice(0, ControlBlock.WORD_BYTES);
    }

    /** Whether {@code w} names the same grant as the one this was opened for (same handle and control block). */
    boolean sameGrant(DeviceWindow w) {
        return Arrays.equals(w.handle(), grant.handle()) && w.control().equals(grant.control())
                && w.allocation() == grant.allocation() && w.kind().equals(grant.kind());
    }

    /** The mapping, opened once on a thread that may block; every caller gets the same outcome. */
    synchronized Mono<PeerMapping> mapping(Endpoint endpoint, DeviceMemory memory, IpcPath path) {
        if (opening == null) {
            opening = Mono.fromCallable(() -> open(endpoint, memory, path))
                    .subscribeOn(Schedulers.boundedElastic())
                    .cache();
        }
        return opening;
    }

    /** Whether what was granted covers {@code w}'s range and rights; only once the mapping opened. */
    boolean covers(DeviceWindow w) {
        ControlBlock.Granted g = granted;
        return g != null && g.covers(w);
    }

    /** The mapping once it is open, else null. */
    @Nullable PeerMapping mapped() {
        return mapping;
    }

    private PeerMapping open(Endpoint endpoint, DeviceMemory memory, IpcPath path) {
        verify(endpoint);
        path.openStream();
        IpcExports.Exported local = IpcExports.find(grant.token());
        PeerMapping m;
        if (local != null) {
            if (!Arrays.equals(local.handle(), grant.handle())) {
                throw new RemoteAccessException("device window does not match its grant");
            }
            m = memory.mapLocal(local.buffer());
        } else {
            m = memory.openIpc(grant.handle(), grant.allocation());
        }
        mapping = m;
        return m;
    }

    /** Reads what the exporter granted and refuses a window whose token, handle or size was altered. */
    private void verify(Endpoint endpoint) {
        try (MemoryRegion scratch = endpoint.memory().allocateRegion(ControlBlock.GRANT_BYTES)) {
            endpoint.get(grant.control().slice(ControlBlock.GRANT_OFFSET, ControlBlock.GRANT_BYTES), scratch.slice())
                    .block(VERIFY_TIMEOUT);
            ControlBlock.Granted g = ControlBlock.granted(scratch.segment());
            if (!g.matches(grant)) {
                throw new RemoteAccessException("device window does not match its grant (token or handle altered)");
            }
            granted = g;
        }
    }

    /** The opening of the mapping, if one was started: what closing waits for before it unmaps. */
    synchronized @Nullable Mono<PeerMapping> opening() {
        return opening;
    }
}

package dev.rivulet.core.memory;

import dev.rivulet.core.internal.BufferLending;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** The memory package's side of {@link Internals}: forwards to the package-private operations. */
final class MemoryAccessImpl implements MemoryAccess {

    static void install() {
        Internals.install(new MemoryAccessImpl());
    }

    private MemoryAccessImpl() {
    }

    @Override
    public MemoryDomain newDomain(String name, Registrar registrar) {
        return new MemoryDomain(name, registrar);
    }

    @Override
    public void close(MemoryDomain domain) {
        domain.close();
    }

    @Override
    public Grant grant(MemoryDomain domain, RegisteredSlice window, Set<Access> rights,
                       @Nullable AccessScope scope) {
        return domain.grant(window, rights, scope);
    }

    @Override
    public Grant grantForTransfer(MemoryDomain domain, RegisteredSlice window, Set<Access> rights,
                                  AccessScope scope) {
        return domain.grantForTransfer(window, rights, scope);
    }

    @Override
    public @Nullable Grant tryResolveRemote(MemoryDomain domain, long key, long address, long length, Access needed,
                                  AccessScope requester) {
        return domain.tryResolveRemote(key, address, length, needed, requester);
    }

    @Override
    public Grant resolveRemote(MemoryDomain domain, long key, long address, long length, Access needed,
                               AccessScope requester) {
        return domain.resolveRemote(key, address, length, needed, requester);
    }

    @Override
    public void revokeScope(MemoryDomain domain, AccessScope scope) {
        domain.revokeScope(scope);
    }

    @Override
    public boolean tryPin(MemoryRegion region) {
        return region.tryPin();
    }

    @Override
    public void unpin(MemoryRegion region) {
        region.unpin();
    }

    @Override
    public void unpin(Grant grant) {
        grant.unpin();
    }

    @Override
    public MemorySegment descriptor(MemoryRegion region) {
        return region.descriptor();
    }

    @Override
    public BufferLending newLending() {
        return new LendingRing();
    }

    @Override
    public void attachBody(Buffer head, Buffer body) {
        head.attachBody(body);
    }

    @Override
    public @Nullable Buffer body(Buffer head) {
        return head.body();
    }
}

package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.ConnectionRefusedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Decides when an {@code shm} endpoint of this process may really be closed in libfabric ({@code fi_close}), so that
 * no other endpoint of the process ever touches its memory afterwards.
 *
 * <p><b>Why.</b> libfabric 1.17's shm provider gives every endpoint a shared-memory region. A peer in another process
 * maps that region itself, but a peer in the same process borrows the owner's own mapping: {@code smr_map_to_region}
 * (prov/util/src/util_shm.c) finds the name in the process-wide {@code ep_name_list} and takes that entry's region
 * pointer. {@code fi_close} of the owner unmaps it ({@code smr_ep_close} &rarr; {@code smr_free} &rarr;
 * {@code munmap}), and anything that still goes through the peer's address vector touches an unmapped page and
 * kills the process: a send ({@code pthread_spin_lock} on the region's lock), enabling another endpoint on that AV
 * ({@code smr_exchange_all_peers} &rarr; {@code smr_cma_check} reads every mapped peer), answering a command of the
 * closed endpoint. {@code smr_free} also leaves the name in {@code ep_name_list}, so inserting a closed endpoint's
 * name into an AV later crashes the same way.
 *
 * <p><b>The rule.</b> When its transport is done with an endpoint, the endpoint is <em>retired</em>: its posted
 * receives are cancelled, its peer is removed from its AV, and it is never polled again (the shm provider only does
 * work inside a poll of the endpoint's own queue, so a retired endpoint touches no other region, and its close does
 * not either). It is closed in libfabric once no live endpoint of this process names it as its peer: those are the
 * only endpoints that inserted its name, explicitly or through the provider's name exchange on their first receive
 * from it, and they remove it when they retire ({@code fi_av_remove} of a same-process peer does not unmap:
 * {@code smr_map_del} finds the name in {@code ep_name_list}). A peer name is inserted only while its endpoint is
 * registered here, and one of this process that is gone is refused, so a stale name never reaches an AV. Peers in
 * other processes are not registered, so an endpoint talking to one closes at once, as before.
 *
 * <p>A retired endpoint waits at most until its peer's own close, which follows the peer seeing the close word or
 * the bootstrap goodbye; what waits is the endpoint, its queue and its context slab, not the transport's memory.
 */
final class SameProcessShm {

    private static final Logger log = LoggerFactory.getLogger(SameProcessShm.class);

    /** The registry of this process: libfabric 1.17 names shm endpoints {@code fi_shm://<pid>:<uid>:<index>}. */
    static final SameProcessShm PROCESS = new SameProcessShm("fi_shm://" + ProcessHandle.current().pid() + ":");

    /** Names of this process's endpoints start with it (smr_endpoint_name: source address "fi_shm://<pid>"). */
    private final String ownPrefix;
    /** Endpoints opened and not yet closed in libfabric, by name. */
    private final Map<String, Entry> endpoints = new HashMap<>();

    SameProcessShm(String ownPrefix) {
        this.ownPrefix = ownPrefix;
    }

    private static final class Entry {
        final String name;
        /** The peer this endpoint inserted into its AV, once known. */
        String peer;
        /** Live (not retired) endpoints of this process whose peer this one is. */
        int referrers;
        /** Set when retired: closes it in libfabric. */
        Runnable close;

        Entry(String name) {
            this.name = name;
        }
    }

    /** A freshly opened endpoint, before its name is handed to anyone. */
    synchronized void opened(byte[] name) {
        String n = text(name);
        endpoints.put(n, new Entry(n));
    }

    /**
     * Endpoint {@code self} is about to insert {@code peer} into its AV. A peer of this process is kept open in
     * libfabric until {@code self} retires.
     *
     * @throws ConnectionRefusedException when {@code peer} is an endpoint of this process that is already closed
     */
    synchronized void peerKnown(byte[] self, byte[] peer) {
        Entry e = endpoints.get(text(self));
        String p = text(peer);
        Entry target = endpoints.get(p);
        if (target == null && isOwn(p)) {
            throw new ConnectionRefusedException("shm endpoint " + p + " of this process is already closed");
        }
        if (target != null) {
            target.referrers++;
        }
        if (e != null) {
            e.peer = p;
        }
    }

    /** Whether {@code name} is an endpoint of this process that is already closed (its name must not be inserted). */
    synchronized boolean closedHere(byte[] name) {
        String n = text(name);
        return isOwn(n) && !endpoints.containsKey(n);
    }

    /** Whether {@code name} belongs to an endpoint of this process, open or not. */
    boolean ownName(byte[] name) {
        return isOwn(text(name));
    }

    /**
     * The transport is done with {@code self} (receives cancelled, peer removed from its AV, never polled again):
     * {@code close} runs now, or once no live endpoint of this process names it as its peer. Retiring may also
     * release the endpoint's own peer, if that one retired earlier and waited for this one.
     */
    void retire(byte[] self, Runnable close) {
        List<Runnable> now = new ArrayList<>(2);
        synchronized (this) {
            Entry e = endpoints.get(text(self));
            if (e == null) {
                now.add(close);
            } else {
                e.close = close;
                // Either order is safe: closing an endpoint touches only its own region.
                closeIfUnreferenced(e, now);
                Entry p = e.peer == null ? null : endpoints.get(e.peer);
                if (p != null) {
                    p.referrers--;
                    closeIfUnreferenced(p, now);
                }
                if (endpoints.containsKey(e.name)) {
                    log.debug("shm endpoint {} retired; closed once its {} same-process peer(s) let go",
                            e.name, e.referrers);
                }
            }
        }
        for (Runnable r : now) {
            try {
                r.run();
            } catch (RuntimeException ex) {
                log.warn("closing a retired shm endpoint failed", ex);
            }
        }
    }

    /** Endpoints opened here and not yet closed in libfabric (retired ones waiting for a peer included). */
    synchronized int open() {
        return endpoints.size();
    }

    private void closeIfUnreferenced(Entry e, List<Runnable> now) {
        if (e.close != null && e.referrers == 0 && endpoints.remove(e.name) != null) {
            now.add(e.close);
        }
    }

    private boolean isOwn(String name) {
        return name.startsWith(ownPrefix);
    }

    /** shm names are NUL-terminated ASCII ({@code fi_getname}). */
    private static String text(byte[] name) {
        int n = name.length;
        while (n > 0 && name[n - 1] == 0) {
            n--;
        }
        return new String(name, 0, n, StandardCharsets.US_ASCII);
    }
}

package dev.rivulet.core.memory;

/**
 * The connection a remote request arrives on, as the target sees it. A {@link Grant} made for one scope answers only
 * requests that arrive on that connection; a grant without a scope ({@link MemoryRegion#grantToAnyPeer}) answers every
 * connection of the transport. Transports pass the connection's own object (its wire) when they check a request.
 */
public interface AccessScope {
}

package dev.rivulet.samples.webflux;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

import java.time.Duration;

/**
 * {@code blocks.*}: the block service's own settings, as a user would put them in {@code application.yml}. How the
 * transports open (queue depths, the name tag of their meters, TLS) is the Rivulet starter's {@code rivulet.*}.
 *
 * @param role          {@code storage} (the node that keeps blocks), {@code front} (the HTTP service) or
 *                      {@code both} in one process
 * @param address       where the storage node listens and the front connects: {@code fabric://host:port} (libfabric
 *                      tcp), {@code uring://host:port} (io_uring) or {@code local://name} (one process); the
 *                      transport follows from it
 * @param transport     which transport to use when no address is given: {@code libfabric}, {@code io_uring} or
 *                      {@code local}; empty picks the best this machine has
 * @param idleStrategy  {@code default} (spin, yield, then park) or {@code spin} (busy-poll)
 * @param storage       the storage node's settings
 * @param front         the HTTP front's settings
 * @param load          the built-in load generator that feeds the live page
 */
@ConfigurationProperties("blocks")
public record BlockServiceProperties(@DefaultValue("both") String role, @DefaultValue("") String address,
                                     @DefaultValue("") String transport,
                                     @DefaultValue("default") String idleStrategy,
                                     @DefaultValue Storage storage, @DefaultValue Front front,
                                     @DefaultValue Load load) {

    /**
     * @param capacity         registered memory the blocks live in
     * @param maxBlockSize     the largest block the storage node accepts
     * @param eventsPerSecond  how fast the event stream goes when nobody holds it back; 0: as fast as credits allow
     */
    public record Storage(@DefaultValue("256MB") DataSize capacity, @DefaultValue("64MB") DataSize maxBlockSize,
                          @DefaultValue("1000") int eventsPerSecond) {
    }

    /**
     * @param chunkSize          bytes per put or get: the unit the body is streamed in
     * @param chunksInFlight     puts or gets of one request in flight at once (two: double-buffered)
     * @param maxBlockSize       the largest body a PUT may send; larger ones are refused with 413 before anything
     *                           is allocated
     * @param requestTimeout     how long the storage node may take to answer a storage request (cancelled after)
     * @param reconnectMinBackoff first wait before reconnecting to a storage node that went away
     * @param reconnectMaxBackoff longest wait between reconnect attempts
     */
    public record Front(@DefaultValue("256KB") DataSize chunkSize, @DefaultValue("2") int chunksInFlight,
                        @DefaultValue("64MB") DataSize maxBlockSize, @DefaultValue("10s") Duration requestTimeout,
                        @DefaultValue("100ms") Duration reconnectMinBackoff,
                        @DefaultValue("5s") Duration reconnectMaxBackoff) {
    }

    /**
     * @param enabled    whether the front writes and reads blocks by itself (for the live page)
     * @param blockSize  size of each block it writes
     * @param interval   pause between one write-and-read and the next
     */
    public record Load(@DefaultValue("false") boolean enabled, @DefaultValue("1MB") DataSize blockSize,
                       @DefaultValue("20ms") Duration interval) {
    }
}

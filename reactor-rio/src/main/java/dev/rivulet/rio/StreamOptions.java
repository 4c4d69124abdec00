package dev.rivulet.rio;

import dev.rivulet.core.TransportOption;

import java.util.List;

/**
 * The options every stream transport (io_uring, RIO) reads, each under its own prefix: see
 * {@link UringOptions} and {@link RioOptions}.
 *
 * @param maxMessageSize largest message this side accepts and sends (told to the peer in the handshake)
 * @param stagingBytes   registered staging buffer per connection, where small messages and frame headers are
 *                       gathered into one write
 * @param receiveBytes   registered receive buffer per connection
 * @param copyLimit      payloads up to this size are copied into staging and coalesced; larger ones are written
 *                       from their own buffer
 * @param maxBatchBytes  largest coalesced frame
 */
public record StreamOptions(TransportOption<Integer> maxMessageSize, TransportOption<Integer> stagingBytes,
                            TransportOption<Integer> receiveBytes, TransportOption<Integer> copyLimit,
                            TransportOption<Integer> maxBatchBytes) {

    /** The five options under {@code prefix} ({@code uring.}, {@code rio.}). */
    public static StreamOptions under(String prefix) {
        return new StreamOptions(
                TransportOption.integer(prefix + "maxMessageSize", 16 << 20, 1, 1 << 30,
                        "largest message in bytes"),
                TransportOption.integer(prefix + "stagingBytes", 256 << 10, 4 << 10, 1 << 30,
                        "registered staging buffer per connection, bytes"),
                TransportOption.integer(prefix + "receiveBytes", 256 << 10, 4 << 10, 1 << 30,
                        "registered receive buffer per connection, bytes"),
                TransportOption.integer(prefix + "copyLimit", 16 << 10, 0, 1 << 30,
                        "payloads up to this size are copied into staging and coalesced"),
                TransportOption.integer(prefix + "maxBatchBytes", 16 << 10, 0, 1 << 30,
                        "largest coalesced frame, bytes"));
    }

    public List<TransportOption<?>> all() {
        return List.of(maxMessageSize, stagingBytes, receiveBytes, copyLimit, maxBatchBytes);
    }
}

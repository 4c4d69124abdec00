package dev.rivulet.core.interaction;

import dev.rivulet.core.interaction.frame.ErrorCode;
import dev.rivulet.core.interaction.frame.FrameType;
import dev.rivulet.core.interaction.frame.Frames;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer that writes frames by hand, as a hostile or broken one would: what breaks one stream ends that stream with
 * an error frame and leaves the connection up; what cannot be tied to a stream ends the connection. Nothing leaks.
 */
class InteractionHostilePeerTest {

    private InteractionSessions sessions;

    @BeforeEach
    void open() {
        sessions = new InteractionSessions(peer -> Interactions.server(peer, Router.builder()
                .requestResponse("echo", p -> Mono.just(Payload.of(p.dataUtf8())))
                .requestStream("count", p -> Flux.range(0, 10).map(i -> Payload.of(Integer.toString(i))))
                .build()));
    }

    @AfterEach
    void close() {
        sessions.close();
    }

    private static byte[] frame(int stream, int type, int flags, int n, byte[] metadata, byte[] data) {
        ByteBuffer b = ByteBuffer.allocate(Frames.HEADER + metadata.length + data.length).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(stream).put((byte) type).put((byte) flags).putShort((short) 0).putInt(n).putInt(metadata.length)
                .put(metadata).put(data);
        return b.array();
    }

    private static byte[] route(String route) {
        byte[] r = route.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(5 + r.length).order(ByteOrder.LITTLE_ENDIAN);
        return b.put((byte) 1).putInt(r.length).put(r).array();
    }

    /** The type and error code of each frame the server answers with, as "TYPE/n@stream". */
    private Flux<String> answers() {
        return sessions.clientEndpoint.receive().map(b -> {
            MemorySegment s = b.segment();
            return FrameType.name(Frames.type(s)) + "/" + Frames.n(s) + "@" + Frames.streamId(s);
        });
    }

    @Test
    void malformedMetadataFailsThatRequestOnly() {
        byte[] badMetadata = {1, (byte) 0xFF, (byte) 0xFF, 0, 0};
        var ep = sessions.clientEndpoint;
        StepVerifier.create(ep.send(frame(1, FrameType.REQUEST_RESPONSE, 0, 0, badMetadata, new byte[0]))
                        .then(ep.send(frame(3, FrameType.REQUEST_RESPONSE, 0, 0, route("echo"), "ok".getBytes())))
                        .thenMany(answers().take(2)))
                .expectNext("ERROR/" + ErrorCode.INVALID + "@1")
                .expectNext("PAYLOAD/0@3")
                .verifyComplete();
    }

    @Test
    void badCreditsEndTheStreamWithAnErrorFrame() {
        var ep = sessions.clientEndpoint;
        StepVerifier.create(ep.send(frame(1, FrameType.REQUEST_STREAM, 0, 0, route("count"), new byte[0]))
                        .then(ep.send(frame(3, FrameType.REQUEST_STREAM, 0, 1, route("count"), new byte[0])))
                        .then(ep.send(frame(3, FrameType.REQUEST_N, 0, -5, new byte[0], new byte[0])))
                        .thenMany(answers().take(3)))
                .expectNext("ERROR/" + ErrorCode.INVALID + "@1")
                .expectNext("PAYLOAD/0@3")
                .expectNext("ERROR/" + ErrorCode.INVALID + "@3")
                .verifyComplete();
    }

    @Test
    void framesForUnknownStreamsAreDropped() {
        var ep = sessions.clientEndpoint;
        StepVerifier.create(ep.send(frame(77, FrameType.PAYLOAD, Frames.NEXT, 0, new byte[0], "stray".getBytes()))
                        .then(ep.send(frame(79, FrameType.CANCEL, 0, 0, new byte[0], new byte[0])))
                        .then(ep.send(frame(5, FrameType.REQUEST_RESPONSE, 0, 0, route("echo"), "x".getBytes())))
                        .thenMany(answers().take(1)))
                .expectNext("PAYLOAD/0@5")
                .verifyComplete();
    }

    @Test
    void whatCannotBeTiedToAStreamEndsTheConnection() {
        for (byte[] hostile : new byte[][] {
                {1, 2, 3},
                frame(2, FrameType.REQUEST_RESPONSE, 0, 0, new byte[0], new byte[0]), // the accepting side's ids
                frame(9, FrameType.REQUEST_RESPONSE, 0, 0, new byte[0], new byte[0]),
        }) {
            if (hostile.length == Frames.HEADER && hostile[0] == 9) {
                // a metadata length larger than the frame
                MemorySegment.ofArray(hostile).set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN),
                        12, 1 << 20);
            }
            try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer,
                    new Responder() { }))) {
                StepVerifier.create(s.clientEndpoint.send(hostile).then(s.clientEndpoint.onClose()))
                        .verifyComplete();
                assertThat(s.serverSide.asMono().block(InteractionSessions.TIMEOUT).isDisposed()).isTrue();
            }
        }
    }
}

package dev.rivulet.spring.codec;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.spring.buffer.RegisteredDataBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.CharSequenceEncoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.util.MimeType;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Codecs chosen by content type, writing into registered memory, and objects back from payload data. */
class RivuletStrategiesTest {

    record Point(int x, int y) {
    }

    private static final ResolvableType POINT = ResolvableType.forClass(Point.class);

    private Transport transport;
    private RivuletStrategies strategies;

    @BeforeEach
    void open() {
        transport = Transports.open("local", TransportConfig.defaults());
        strategies = RivuletStrategies.create(transport.memory());
    }

    @AfterEach
    void close() {
        try {
            assertThat(transport.memory().buffers().outstanding()).as("pooled buffers not given back").isZero();
        } finally {
            transport.dispose();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/cbor"})
    void jacksonEncodersWriteIntoRegisteredMemory(String contentType) {
        MimeType type = MimeType.valueOf(contentType);
        DataBuffer body = strategies.encoder(POINT, type)
                .encodeValue(new Point(1, 2), strategies.dataBufferFactory(), POINT, type, Map.of());
        assertThat(body).isInstanceOf(RegisteredDataBuffer.class);
        DataBufferUtils.release(body);
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/cbor"})
    void objectsGoThroughPayloadsAndBack(String contentType) {
        MimeType type = MimeType.valueOf(contentType);
        Payload payload = strategies.encode(new Point(3, 4), POINT, type,
                Metadata.builder().contentType(contentType).build());
        try {
            assertThat(strategies.<Point>decode(payload, POINT)).isEqualTo(new Point(3, 4));
        } finally {
            payload.release();
        }
    }

    @Test
    void strategiesWithoutMemoryDecodeButEncodeOnlyOnceBound() {
        RivuletStrategies codecs = RivuletStrategies.builder().build();
        assertThat(codecs.hasMemory()).isFalse();
        assertThatThrownBy(() -> codecs.encode(new Point(1, 2), POINT, RivuletStrategies.JSON, Metadata.EMPTY))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("withMemory");

        RivuletStrategies bound = codecs.withMemory(transport.memory());
        assertThat(bound.hasMemory()).isTrue();
        assertThat(bound.dataBufferFactory().domain()).isSameAs(transport.memory());
        assertThat(bound.withMemory(transport.memory())).as("already bound there").isSameAs(bound);
        Payload payload = bound.encode(new Point(5, 6), POINT, RivuletStrategies.JSON, Metadata.EMPTY);
        try {
            assertThat(codecs.<Point>decode(payload, POINT)).isEqualTo(new Point(5, 6));
        } finally {
            payload.release();
        }
    }

    @Test
    void jsonAndCborAreDifferentBytes() {
        Payload json = strategies.encode(new Point(5, 6), POINT, RivuletStrategies.JSON, Metadata.EMPTY);
        Payload cbor = strategies.encode(new Point(5, 6), POINT, RivuletStrategies.CBOR, Metadata.EMPTY);
        try {
            assertThat(json.dataUtf8()).isEqualTo("{\"x\":5,\"y\":6}");
            assertThat(cbor.dataBytes()).isNotEqualTo(json.dataBytes());
        } finally {
            json.release();
            cbor.release();
        }
    }

    @Test
    void aPayloadNamingNoContentTypeIsReadAsTheDefault() {
        Payload plain = Payload.of("{\"x\":7,\"y\":8}");
        assertThat(strategies.contentType(plain.metadata())).isEqualTo(RivuletStrategies.JSON);
        assertThat(strategies.<Point>decode(plain, POINT)).isEqualTo(new Point(7, 8));
        RivuletStrategies cborByDefault = strategies.mutate().defaultContentType(RivuletStrategies.CBOR).build();
        assertThat(cborByDefault.contentType(Metadata.EMPTY)).isEqualTo(RivuletStrategies.CBOR);
    }

    @Test
    void textAndBytesTravelAsTheyAreUnderAnyContentType() {
        ResolvableType string = ResolvableType.forClass(String.class);
        Payload text = strategies.encode("héllo", string, RivuletStrategies.JSON, Metadata.EMPTY);
        try {
            assertThat(text.dataUtf8()).isEqualTo("héllo");
            assertThat(strategies.<String>decode(text, string)).isEqualTo("héllo");
        } finally {
            text.release();
        }
        ResolvableType bytes = ResolvableType.forClass(byte[].class);
        Payload raw = strategies.encode(new byte[] {1, 2, 3}, bytes, RivuletStrategies.CBOR, Metadata.EMPTY);
        try {
            assertThat(strategies.<byte[]>decode(raw, bytes)).containsExactly(1, 2, 3);
        } finally {
            raw.release();
        }
    }

    @Test
    void aTypeNoCodecHandlesUnderAContentTypeIsRefused() {
        MimeType xml = MimeType.valueOf("application/xml");
        assertThatThrownBy(() -> strategies.encoder(POINT, xml)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("application/xml");
        assertThatThrownBy(() -> strategies.decoder(POINT, xml)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void encodersAddedInFrontAreTriedFirst() {
        RivuletStrategies custom = strategies.mutate()
                .encoders(list -> list.addFirst(CharSequenceEncoder.textPlainOnly()))
                .build();
        assertThat(custom.encoders()).hasSize(strategies.encoders().size() + 1);
        assertThat(custom.encoders().getFirst()).isNotSameAs(strategies.encoders().getFirst());
    }
}

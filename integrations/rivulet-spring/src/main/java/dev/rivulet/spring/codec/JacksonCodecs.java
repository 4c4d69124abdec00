package dev.rivulet.spring.codec;

import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.Encoder;
import org.springframework.http.codec.cbor.JacksonCborDecoder;
import org.springframework.http.codec.cbor.JacksonCborEncoder;
import org.springframework.http.codec.json.JacksonJsonDecoder;
import org.springframework.http.codec.json.JacksonJsonEncoder;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * Spring's Jackson 3 codecs for JSON and CBOR, when the application has them on its class path (spring-web and
 * jackson-databind, jackson-dataformat-cbor for CBOR). A class of its own so that nothing loads their types when they
 * are absent.
 */
final class JacksonCodecs {

    private static final ClassLoader LOADER = JacksonCodecs.class.getClassLoader();
    private static final boolean JSON = ClassUtils.isPresent("tools.jackson.databind.json.JsonMapper", LOADER)
            && ClassUtils.isPresent("org.springframework.http.codec.json.JacksonJsonEncoder", LOADER);
    private static final boolean CBOR = JSON
            && ClassUtils.isPresent("tools.jackson.dataformat.cbor.CBORMapper", LOADER);

    private JacksonCodecs() {
    }

    static void addEncoders(List<Encoder<?>> encoders) {
        if (JSON) {
            encoders.add(new JacksonJsonEncoder());
        }
        if (CBOR) {
            encoders.add(new JacksonCborEncoder());
        }
    }

    static void addDecoders(List<Decoder<?>> decoders) {
        if (JSON) {
            decoders.add(new JacksonJsonDecoder());
        }
        if (CBOR) {
            decoders.add(new JacksonCborDecoder());
        }
    }
}

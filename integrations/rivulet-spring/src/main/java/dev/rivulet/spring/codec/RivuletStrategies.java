package dev.rivulet.spring.codec;

import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.spring.buffer.RegisteredDataBufferFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.ByteArrayDecoder;
import org.springframework.core.codec.ByteArrayEncoder;
import org.springframework.core.codec.ByteBufferDecoder;
import org.springframework.core.codec.ByteBufferEncoder;
import org.springframework.core.codec.CharSequenceEncoder;
import org.springframework.core.codec.DataBufferDecoder;
import org.springframework.core.codec.DataBufferEncoder;
import org.springframework.core.codec.Decoder;
import org.springframework.core.codec.Encoder;
import org.springframework.core.codec.StringDecoder;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.util.AntPathMatcher;
import org.springframework.util.MimeType;
import org.springframework.util.MimeTypeUtils;
import org.springframework.util.RouteMatcher;
import org.springframework.util.SimpleRouteMatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What both sides of Spring's Rivulet support share, as {@code RSocketStrategies} is for RSocket: the encoders and
 * decoders (tried in order, the first that can handle a type and content type wins), the
 * {@link RegisteredDataBufferFactory} encoders write into, the route matcher for {@code @MessageMapping} patterns
 * and the content type of payloads whose metadata names none.
 *
 * <p>The defaults: raw bytes ({@code byte[]}, {@code ByteBuffer}, {@code DataBuffer}) and UTF-8 text
 * ({@code String}, any {@code CharSequence}) under every content type, then Jackson 3 JSON ({@link #JSON}) and CBOR
 * ({@link #CBOR}) when they are on the class path; routes matched as {@code "a.{var}.*"} patterns with {@code .} as
 * separator; JSON where a payload names no content type. Immutable; {@link #mutate()} starts a builder from it.
 *
 * <p>Strategies made {@linkplain #builder() without memory} hold the codecs only, for an application that does not
 * know yet which transport it will talk over: {@link #withMemory(MemoryDomain)} binds them to a transport's memory
 * before anything is encoded (as {@link dev.rivulet.spring.requester.RivuletRequester.Builder} does for each
 * connection).
 */
public final class RivuletStrategies {

    public static final MimeType JSON = MimeTypeUtils.APPLICATION_JSON;
    public static final MimeType CBOR = new MimeType("application", "cbor");

    private final List<Encoder<?>> encoders;
    private final List<Decoder<?>> decoders;
    private final @Nullable RegisteredDataBufferFactory bufferFactory;
    private final RouteMatcher routeMatcher;
    private final ReactiveAdapterRegistry adapterRegistry;
    private final MimeType defaultContentType;

    private RivuletStrategies(Builder b) {
        this.encoders = List.copyOf(b.encoders);
        this.decoders = List.copyOf(b.decoders);
        this.bufferFactory = b.bufferFactory;
        this.routeMatcher = b.routeMatcher;
        this.adapterRegistry = b.adapterRegistry;
        this.defaultContentType = b.defaultContentType;
    }

    /** The defaults, with buffers from {@code domain} (usually the transport's, {@code transport.memory()}). */
    public static RivuletStrategies create(MemoryDomain domain) {
        return builder(domain).build();
    }

    /** A builder holding the defaults, with buffers from {@code domain}. */
    public static Builder builder(MemoryDomain domain) {
        return new Builder(new RegisteredDataBufferFactory(domain));
    }

    /** A builder holding the defaults and no memory: bind what it builds with {@link #withMemory(MemoryDomain)}. */
    public static Builder builder() {
        return new Builder((RegisteredDataBufferFactory) null);
    }

    /**
     * These strategies with buffers from {@code domain} (usually a connection's, {@code endpoint.memory()}): this
     * instance when its buffers already come from there.
     */
    public RivuletStrategies withMemory(MemoryDomain domain) {
        Objects.requireNonNull(domain, "domain");
        return bufferFactory != null && bufferFactory.domain() == domain ? this : mutate().memory(domain).build();
    }

    /** Whether these strategies have memory to encode into (strategies made by {@link #builder()} have none). */
    public boolean hasMemory() {
        return bufferFactory != null;
    }

    /** A builder holding these strategies. */
    public Builder mutate() {
        return new Builder(this);
    }

    public List<Encoder<?>> encoders() {
        return encoders;
    }

    public List<Decoder<?>> decoders() {
        return decoders;
    }

    /** Where encoders write; fails when these strategies have no memory yet ({@link #withMemory}). */
    public RegisteredDataBufferFactory dataBufferFactory() {
        if (bufferFactory == null) {
            throw new IllegalStateException("these strategies have no memory to encode into: bind them to a "
                    + "connection's with withMemory(endpoint.memory())");
        }
        return bufferFactory;
    }

    public RouteMatcher routeMatcher() {
        return routeMatcher;
    }

    public ReactiveAdapterRegistry reactiveAdapterRegistry() {
        return adapterRegistry;
    }

    /** The content type assumed for a payload whose metadata names none. */
    public MimeType defaultContentType() {
        return defaultContentType;
    }

    /** The content type {@code metadata} names, or {@link #defaultContentType()}. */
    public MimeType contentType(Metadata metadata) {
        String named = metadata.contentType();
        return named == null ? defaultContentType : MimeTypeUtils.parseMimeType(named);
    }

    /** The first encoder for {@code type} under {@code contentType}. */
    @SuppressWarnings("unchecked")
    public <T> Encoder<T> encoder(ResolvableType type, @Nullable MimeType contentType) {
        for (Encoder<?> e : encoders) {
            if (e.canEncode(type, contentType)) {
                return (Encoder<T>) e;
            }
        }
        throw new IllegalArgumentException("no encoder for " + type + " as " + contentType);
    }

    /** The first decoder for {@code type} under {@code contentType}. */
    @SuppressWarnings("unchecked")
    public <T> Decoder<T> decoder(ResolvableType type, @Nullable MimeType contentType) {
        for (Decoder<?> d : decoders) {
            if (d.canDecode(type, contentType)) {
                return (Decoder<T>) d;
            }
        }
        throw new IllegalArgumentException("no decoder for " + type + " as " + contentType);
    }

    /**
     * {@code value} encoded as {@code contentType} into registered memory, as a payload with {@code metadata} (whose
     * content type it should name).
     */
    public Payload encode(Object value, ResolvableType type, MimeType contentType, Metadata metadata) {
        RegisteredDataBufferFactory factory = dataBufferFactory();
        DataBuffer body = this.<Object>encoder(type, contentType)
                .encodeValue(value, factory, type, contentType, Map.of());
        return PayloadBodies.toPayload(body, metadata, factory);
    }

    /**
     * {@code payload}'s data decoded as {@code type}, under the content type its metadata names: call this while the
     * payload is valid (a received one: in the call it was handed to). Empty data decodes to whatever the decoder
     * makes of it.
     */
    public <T> @Nullable T decode(Payload payload, ResolvableType type) {
        MimeType contentType = contentType(payload.metadata());
        return this.<T>decoder(type, contentType).decode(PayloadBodies.view(payload), type, contentType, Map.of());
    }

    /** Configures {@link RivuletStrategies}; starts from the defaults. */
    public static final class Builder {

        private final List<Encoder<?>> encoders = new ArrayList<>();
        private final List<Decoder<?>> decoders = new ArrayList<>();
        private @Nullable RegisteredDataBufferFactory bufferFactory;
        private RouteMatcher routeMatcher = new SimpleRouteMatcher(new AntPathMatcher("."));
        private ReactiveAdapterRegistry adapterRegistry = ReactiveAdapterRegistry.getSharedInstance();
        private MimeType defaultContentType = JSON;

        private Builder(@Nullable RegisteredDataBufferFactory bufferFactory) {
            this.bufferFactory = bufferFactory;
            encoders.add(CharSequenceEncoder.allMimeTypes());
            encoders.add(new ByteBufferEncoder());
            encoders.add(new ByteArrayEncoder());
            encoders.add(new DataBufferEncoder());
            JacksonCodecs.addEncoders(encoders);
            decoders.add(StringDecoder.allMimeTypes());
            decoders.add(new ByteBufferDecoder());
            decoders.add(new ByteArrayDecoder());
            decoders.add(new DataBufferDecoder());
            JacksonCodecs.addDecoders(decoders);
        }

        private Builder(RivuletStrategies from) {
            this.bufferFactory = from.bufferFactory;
            this.encoders.addAll(from.encoders);
            this.decoders.addAll(from.decoders);
            this.routeMatcher = from.routeMatcher;
            this.adapterRegistry = from.adapterRegistry;
            this.defaultContentType = from.defaultContentType;
        }

        /** Changes the encoder list (add an encoder in front to have it tried first). */
        public Builder encoders(Consumer<List<Encoder<?>>> change) {
            change.accept(encoders);
            return this;
        }

        /** Changes the decoder list (add a decoder in front to have it tried first). */
        public Builder decoders(Consumer<List<Decoder<?>>> change) {
            change.accept(decoders);
            return this;
        }

        /** Buffers from another domain. */
        public Builder memory(MemoryDomain domain) {
            this.bufferFactory = new RegisteredDataBufferFactory(domain);
            return this;
        }

        public Builder routeMatcher(RouteMatcher routeMatcher) {
            this.routeMatcher = Objects.requireNonNull(routeMatcher, "routeMatcher");
            return this;
        }

        public Builder reactiveAdapterRegistry(ReactiveAdapterRegistry registry) {
            this.adapterRegistry = Objects.requireNonNull(registry, "registry");
            return this;
        }

        public Builder defaultContentType(MimeType contentType) {
            this.defaultContentType = Objects.requireNonNull(contentType, "contentType");
            return this;
        }

        public RivuletStrategies build() {
            return new RivuletStrategies(this);
        }
    }
}

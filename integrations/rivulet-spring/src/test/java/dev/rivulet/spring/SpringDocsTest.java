package dev.rivulet.spring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.spring.buffer.RegisteredDataBuffer;
import dev.rivulet.spring.buffer.RegisteredDataBufferFactory;
import dev.rivulet.spring.codec.PayloadBodies;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.messaging.RivuletMessageHandler;
import dev.rivulet.spring.requester.RivuletRequester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.messaging.handler.annotation.DestinationVariable;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The examples of {@code docs/spring.md}, compiled and run (regions between {@code // snippet:begin NAME} and
 * {@code // snippet:end}, checked against the page by core's {@code DocsSnippetsTest}).
 */
class SpringDocsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    record Order(long id, String customer, int amount) {
    }

    record Total(int amount) {
    }

    // snippet:begin controller
    @Controller
    static class OrderController {

        private final Map<Long, Order> orders = new ConcurrentHashMap<>();

        @MessageMapping("orders.{id}")                      // request-response
        Mono<Order> order(@DestinationVariable long id) {
            return Mono.justOrEmpty(orders.get(id));
        }

        @MessageMapping("orders.place")                     // fire-and-forget
        void place(Order order) {
            orders.put(order.id(), order);
        }

        @MessageMapping("orders.of")                        // request-stream
        Flux<Order> ordersOf(String customer) {
            return Flux.fromIterable(orders.values()).filter(o -> o.customer().equals(customer));
        }

        @MessageMapping("orders.total")                     // request-channel
        Mono<Total> total(Flux<Order> batch) {
            return batch.reduce(0, (sum, o) -> sum + o.amount()).map(Total::new);
        }
    }
    // snippet:end

    private Transport transport;
    private AnnotationConfigApplicationContext context;
    private RivuletServer.BoundServer server;
    private Requester client;

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @AfterEach
    void close() {
        try {
            client.dispose();
            server.disposeNow(TIMEOUT);
            context.close();
            LeakDetector.awaitNoLeaks(TIMEOUT);
            assertThat(transport.memory().buffers().outstanding()).as("pooled buffers not given back").isZero();
        } finally {
            transport.dispose();
            LeakDetector.disable();
        }
    }

    @Test
    void serveControllersAndRequest() {
        // snippet:begin serve
        Transport transport = Transports.open("local", TransportConfig.defaults());
        RivuletStrategies strategies = RivuletStrategies.create(transport.memory());

        AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
        context.registerBean(OrderController.class);
        context.registerBean(RivuletMessageHandler.class, () -> new RivuletMessageHandler(strategies));
        context.refresh();
        RivuletMessageHandler handler = context.getBean(RivuletMessageHandler.class);

        RivuletServer.BoundServer server = RivuletServer.create()
                .runOn(transport)
                .bindAddress("local://orders")
                .handle(peer -> Interactions.server(peer, handler.responder()).onClose())
                .bindNow();
        // snippet:end
        this.transport = transport;
        this.context = context;
        this.server = server;

        // snippet:begin request
        Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress("local://orders").connectNow();
        RivuletRequester orders = RivuletRequester.create(Interactions.client(endpoint), strategies);

        orders.route("orders.place").data(new Order(42, "ada", 300)).send().block();

        Order order = orders.route("orders.{id}", 42)
                .retrieveMono(Order.class)
                .block();

        List<Order> ofAda = orders.route("orders.of")
                .data("ada")
                .retrieveFlux(Order.class)
                .collectList()
                .block();

        Total total = orders.dataContentType(RivuletStrategies.CBOR)
                .route("orders.total")
                .data(Flux.just(new Order(1, "bob", 5), new Order(2, "bob", 7)), Order.class)
                .retrieveFlux(Total.class)
                .blockLast();
        // snippet:end
        this.client = orders.requester();

        assertThat(order).isEqualTo(new Order(42, "ada", 300));
        assertThat(ofAda).containsExactly(new Order(42, "ada", 300));
        assertThat(total).isEqualTo(new Total(12));
        assertThat(orders.route("orders.{id}", 7).retrieveMono(Order.class).blockOptional(TIMEOUT)).isEmpty();
    }

    @Test
    void encodedBodiesAreSentFromRegisteredMemory() {
        transport = Transports.open("local", TransportConfig.defaults());
        RivuletStrategies strategies = RivuletStrategies.create(transport.memory());
        context = new AnnotationConfigApplicationContext();
        context.registerBean(OrderController.class);
        context.registerBean(RivuletMessageHandler.class, () -> new RivuletMessageHandler(strategies));
        context.refresh();
        RivuletMessageHandler handler = context.getBean(RivuletMessageHandler.class);
        server = RivuletServer.create().runOn(transport).bindAddress("local://bodies")
                .handle(peer -> Interactions.server(peer, handler.responder()).onClose()).bindNow();
        Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress("local://bodies").connectNow();
        client = Interactions.client(endpoint);

        // snippet:begin buffers
        RegisteredDataBufferFactory buffers = strategies.dataBufferFactory();
        ResolvableType type = ResolvableType.forClass(Order.class);
        DataBuffer body = strategies.encoder(type, RivuletStrategies.JSON)
                .encodeValue(new Order(7, "cy", 10), buffers, type, RivuletStrategies.JSON, Map.of());
        // Spring's encoder wrote into a pooled buffer of transport.memory(): the payload takes it, no copy
        Payload place = PayloadBodies.toPayload(body, Metadata.builder()
                .route("orders.place").contentType("application/json").build(), buffers);
        client.fireAndForget(place).block();
        // snippet:end
        assertThat(body).as("what Spring's JSON encoder wrote into").isInstanceOf(RegisteredDataBuffer.class);

        Order placed = RivuletRequester.create(client, strategies).route("orders.{id}", 7)
                .retrieveMono(Order.class).block(TIMEOUT);
        assertThat(placed).isEqualTo(new Order(7, "cy", 10));
    }
}

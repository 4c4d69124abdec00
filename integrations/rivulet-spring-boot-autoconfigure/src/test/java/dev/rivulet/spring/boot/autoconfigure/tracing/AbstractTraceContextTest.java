package dev.rivulet.spring.boot.autoconfigure.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import brave.handler.MutableSpan;
import brave.handler.SpanHandler;
import brave.propagation.TraceContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

import dev.rivulet.spring.boot.autoconfigure.RivuletServerLifecycle;
import dev.rivulet.spring.requester.RivuletRequester;

/**
 * An application traced by Brave, as Spring Boot configures it from the class path: a request made within a trace
 * carries its context over a real transport, and the {@code @MessageMapping} method serving it runs in a span of the
 * same trace, a child of the requester's. Subclasses pick the transport with {@code rivulet.server.address}.
 */
abstract class AbstractTraceContextTest {

    @Autowired
    RivuletRequester.Builder requesters;
    @Autowired
    RivuletServerLifecycle server;
    @Autowired
    ObservationRegistry observations;
    @Autowired
    FinishedSpans finished;

    @Test
    void theHandlerRunsInAChildOfTheRequestersSpanInTheSameTrace() {
        RivuletRequester requester = requesters.connectNow(server.boundServer().address());
        try {
            // snippet:begin boot-trace-requester
            Observation checkout = Observation.start("checkout", observations);
            SpanIds seenByHandler = requester.route("where-am-i").retrieveMono(SpanIds.class)
                    .contextWrite(c -> c.put(ObservationThreadLocalAccessor.KEY, checkout))
                    .block(Duration.ofSeconds(10));
            checkout.stop();
            // snippet:end

            MutableSpan parent = finished.named("checkout");
            MutableSpan requesting = finished.onSide("requester");
            MutableSpan serving = finished.onSide("responder");
            assertThat(requesting.parentId()).as("the request is made within the application's span")
                    .isEqualTo(parent.id());
            assertThat(serving.traceId()).as("the trace crossed the wire").isEqualTo(parent.traceId());
            assertThat(serving.parentId()).as("the responder's span is a child of the requester's")
                    .isEqualTo(requesting.id());
            assertThat(serving.name()).isEqualTo("request-response where-am-i");
            assertThat(seenByHandler).as("the @MessageMapping method runs in the responder's span")
                    .isEqualTo(new SpanIds(serving.traceId(), serving.id()));
        } finally {
            requester.requester().dispose();
        }
    }

    /** What a traced method saw as its current span. */
    record SpanIds(String traceId, String spanId) {
    }

    @Controller
    static class WhereAmIController {

        private final Tracer tracer;

        WhereAmIController(Tracer tracer) {
            this.tracer = tracer;
        }

        // snippet:begin boot-trace-handler
        @MessageMapping("where-am-i")
        Mono<SpanIds> whereAmI() {
            Span current = tracer.currentSpan(); // the span of serving this request
            return current == null ? Mono.empty()
                    : Mono.just(new SpanIds(current.context().traceId(), current.context().spanId()));
        }
        // snippet:end
    }

    /** The spans the application finished, as a span exporter would receive them. */
    static final class FinishedSpans extends SpanHandler {

        private final Queue<MutableSpan> spans = new ConcurrentLinkedQueue<>();

        @Override
        public boolean end(TraceContext context, MutableSpan span, Cause cause) {
            if (cause == Cause.FINISHED) {
                spans.add(span);
            }
            return true;
        }

        MutableSpan named(String name) {
            return only(spans.stream().filter(s -> name.equals(s.name())).toList(), name);
        }

        MutableSpan onSide(String side) {
            return only(spans.stream().filter(s -> side.equals(s.tag("rivulet.side"))).toList(), side);
        }

        private MutableSpan only(List<MutableSpan> matching, String what) {
            assertThat(matching).as("finished spans %s: %s", what, spans).hasSize(1);
            return matching.getFirst();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class TracedApplication {

        @Bean
        WhereAmIController whereAmIController(Tracer tracer) {
            return new WhereAmIController(tracer);
        }

        @Bean
        FinishedSpans finishedSpans() {
            return new FinishedSpans();
        }
    }
}

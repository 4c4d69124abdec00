package dev.rivulet.samples.webflux.front;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Locale;

/**
 * {@code GET /stats/stream}: what the live page draws, every half second, read from the same meters Actuator
 * publishes (so the page and {@code /actuator/prometheus} agree) and from the control connection's credit counters.
 */
@RestController
public class StatsController {

    private final MeterRegistry meters;
    private final StorageClient storage;
    private final String transportName;

    public StatsController(MeterRegistry meters, StorageClient storage, String transportName) {
        this.meters = meters;
        this.storage = storage;
        this.transportName = transportName;
    }

    @GetMapping(value = "/stats/stream", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<String>> stats() {
        return Flux.interval(Duration.ZERO, Duration.ofMillis(500))
                .onBackpressureDrop()
                .concatMap(tick -> snapshot())
                .map(json -> ServerSentEvent.builder(json).event("stats").build());
    }

    private Mono<String> snapshot() {
        return storage.stats()
                .map(s -> json(s.sendCredits(), s.sendsInFlight(), s.pendingOperations(), true))
                .onErrorResume(e -> Mono.just(json(0, 0, 0, false)));
    }

    private String json(long credits, int sendsInFlight, int pending, boolean up) {
        return String.format(Locale.ROOT, "{\"at\":%d,\"up\":%s,\"blocksStored\":%.0f,\"blocksRead\":%.0f,"
                        + "\"bytesStored\":%.0f,\"bytesRead\":%.0f,\"inflight\":%.0f,\"credits\":%d,"
                        + "\"controlInFlight\":%d,\"pending\":%d}",
                System.currentTimeMillis(), up, Search.in(meters).name("rivulet.webflux.blocks").gauges().stream()
                        .mapToDouble(Gauge::value).sum(),
                count("rivulet.webflux.blocks.read"), count("rivulet.webflux.bytes.stored"),
                count("rivulet.webflux.bytes.read"), gauge("rivulet.inflight"), credits, sendsInFlight, pending);
    }

    private double count(String name) {
        return Search.in(meters).name(name).counters().stream().mapToDouble(c -> c.count()).sum();
    }

    private double gauge(String name) {
        return Search.in(meters).name(name).tag("name", transportName).gauges().stream()
                .mapToDouble(Gauge::value).sum();
    }
}

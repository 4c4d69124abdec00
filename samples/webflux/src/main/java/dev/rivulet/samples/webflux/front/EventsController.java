package dev.rivulet.samples.webflux.front;

import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/**
 * {@code GET /events}: the storage node's Rivulet event stream relayed as server-sent events. Nothing is buffered in
 * between: WebFlux asks for the next event only as the HTTP connection takes them, that demand is the Rivulet
 * connection's credits, and without credits the storage node's sender waits. A slow HTTP client slows the sender.
 */
@RestController
public class EventsController {

    private final StorageClient storage;

    public EventsController(StorageClient storage) {
        this.storage = storage;
    }

    @GetMapping(value = "/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    public Flux<ServerSentEvent<String>> events() {
        return storage.events().map(e -> ServerSentEvent.builder(e).event("storage").build());
    }
}

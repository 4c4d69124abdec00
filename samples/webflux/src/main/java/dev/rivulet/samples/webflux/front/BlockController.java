package dev.rivulet.samples.webflux.front;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code PUT /blocks/{id}} streams the request body into the storage node's memory; {@code GET /blocks/{id}} streams
 * it back; {@code DELETE /blocks/{id}} forgets it. Bodies are never gathered on the heap. An id that is not one
 * ({@link BlockIds}) is a 400 on every endpoint alike.
 */
@RestController
public class BlockController {

    private final BlockService blocks;

    public BlockController(BlockService blocks) {
        this.blocks = blocks;
    }

    @PutMapping("/blocks/{id}")
    public Mono<ResponseEntity<Void>> put(@PathVariable("id") String id, ServerHttpRequest request) {
        BlockIds.require(id);
        long length = request.getHeaders().getContentLength();
        if (length < 0) {
            return Mono.error(new BlockException(HttpStatus.LENGTH_REQUIRED, "a block's size must be known up front: "
                    + "send Content-Length"));
        }
        return blocks.put(id, length, request.getBody())
                .map(n -> ResponseEntity.created(BlockIds.location(id)).build());
    }

    @GetMapping("/blocks/{id}")
    public Mono<ResponseEntity<Flux<DataBuffer>>> get(@PathVariable("id") String id) {
        return blocks.get(BlockIds.require(id)).map(b -> ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_OCTET_STREAM).contentLength(b.length()).body(b.body()));
    }

    @DeleteMapping("/blocks/{id}")
    public Mono<ResponseEntity<Void>> delete(@PathVariable("id") String id) {
        return blocks.delete(BlockIds.require(id)).thenReturn(ResponseEntity.noContent().build());
    }

    @ExceptionHandler(BlockException.class)
    public ResponseEntity<String> refused(BlockException e) {
        ResponseEntity.BodyBuilder r = ResponseEntity.status(e.status()).contentType(MediaType.TEXT_PLAIN);
        if (e.status() == HttpStatus.CONTENT_TOO_LARGE || e.status() == HttpStatus.LENGTH_REQUIRED) {
            // The body was never read: this connection cannot carry another request after it.
            r = r.header(HttpHeaders.CONNECTION, "close");
        }
        return r.body(e.getMessage() + "\n");
    }

    @ExceptionHandler(StorageUnavailableException.class)
    public ResponseEntity<String> unavailable(StorageUnavailableException e) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).header("Retry-After", "1")
                .contentType(MediaType.TEXT_PLAIN).body(e.getMessage() + "\n");
    }
}

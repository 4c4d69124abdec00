package dev.rivulet.rdma.wire;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;

import java.util.ArrayList;
import java.util.List;

/** What a wire reported, in order. */
final class RecordingEvents implements WireEvents {

    final List<Long> words = new ArrayList<>();
    final List<TransportException> breaks = new ArrayList<>();

    @Override
    public void completed(Op op, long value) {
        throw new AssertionError("no operation here");
    }

    @Override
    public void failed(Op op, TransportException error) {
        throw new AssertionError("no operation here");
    }

    @Override
    public void controlCompleted() {
    }

    @Override
    public void received(long controlWord, Buffer payload) {
        words.add(controlWord);
    }

    @Override
    public void broken(TransportException cause) {
        breaks.add(cause);
    }
}

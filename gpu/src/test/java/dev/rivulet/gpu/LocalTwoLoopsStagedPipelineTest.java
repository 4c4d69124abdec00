package dev.rivulet.gpu;

import dev.rivulet.core.TransportConfig;

/**
 * The staged pipeline over {@code local} with two polling threads per transport: the pipeline's loop and its
 * endpoint's loop may then differ, so every signal between them is handed over.
 */
class LocalTwoLoopsStagedPipelineTest extends StagedPipelineContract {

    private static final TestTransport TWO_LOOPS = TestTransport.local(TransportConfig.defaults().progressThreads(2));

    @Override
    TestTransport transport() {
        return TWO_LOOPS;
    }
}

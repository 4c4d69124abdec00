package dev.rivulet.gpu;

/** The staged pipeline over Rivulet's shared-memory transport ({@code shm://}), both sides in this JVM. */
class ShmStagedPipelineTest extends StagedPipelineContract {

    @Override
    TestTransport transport() {
        return TestTransport.SHM;
    }
}

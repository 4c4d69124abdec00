package dev.rivulet.gpu;

/** The staged pipeline over Rivulet's {@code shm://}, between two endpoints of this process. */
class ShmStagedPipelineTest extends StagedPipelineContract {

    @Override
    TestTransport transport() {
        return TestTransport.SHM;
    }
}

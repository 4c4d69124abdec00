package dev.rivulet.gpu;

/** The staged pipeline over libfabric's {@code tcp} provider on loopback, where libfabric is installed. */
class FabricTcpStagedPipelineTest extends StagedPipelineContract {

    @Override
    TestTransport transport() {
        return TestTransport.LIBFABRIC_TCP;
    }
}

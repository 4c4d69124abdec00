package dev.rivulet.rdma.fabric.sys;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The loader, the exported functions, fi_info ownership and the dispatch guard. */
class LibfabricTest {

    private static final Logger LOG = LoggerFactory.getLogger(LibfabricTest.class);

    private static void requireLibfabric() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElseThrow());
    }

    @Test
    void reportsWhetherTheLibraryIsUsableAndWhyNot() {
        assertThat(Libfabric.isAvailable()).isEqualTo(Libfabric.unavailableReason().isEmpty());
        Libfabric.unavailableReason().ifPresent(reason -> {
            assertThat(reason).isNotBlank();
            assertThatThrownBy(Libfabric::ensureAvailable).isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining(reason);
        });
    }

    @Test
    void fiInfoFunctionsAreBoundAtTheVersionOfTheLayouts() {
        requireLibfabric();
        LOG.info("libfabric {} bound as {}", Libfabric.versionString(Libfabric.runtimeVersion()),
                Libfabric.boundSymbols());
        assertThat(Libfabric.boundSymbols()).containsEntry("fi_getinfo", "fi_getinfo@FABRIC_1.3")
                .containsEntry("fi_freeinfo", "fi_freeinfo@FABRIC_1.3")
                .containsEntry("fi_dupinfo", "fi_dupinfo@FABRIC_1.3")
                .containsEntry("fi_fabric", "fi_fabric@FABRIC_1.1");
    }

    @Test
    void requestsTheBindingVersionCappedByTheRuntime() {
        requireLibfabric();
        assertThat(Libfabric.fiVersion(1, 17)).isEqualTo(0x10011);
        assertThat(Libfabric.apiVersion()).isEqualTo(Math.min(Libfabric.BINDING_VERSION, Libfabric.runtimeVersion()));
    }

    @Test
    void requestingAVersionNewerThanTheLibraryFailsWithEnosys() {
        requireLibfabric();
        try (Arena arena = Arena.ofConfined()) {
            int tooNew = Libfabric.runtimeVersion() + 1;
            int rc = Libfabric.getinfo(tooNew, MemorySegment.NULL, MemorySegment.NULL, 0, MemorySegment.NULL,
                    arena.allocate(ADDRESS));
            assertThat(rc).isEqualTo(-FI_ENOSYS);
        }
    }

    @Test
    void allocinfoHintsOwnLibcCopiesOfWhatJavaStoresInThem() {
        requireLibfabric();
        MemorySegment hints = Libfabric.allocinfo();
        MemorySegment copy = MemorySegment.NULL;
        try (Arena arena = Arena.ofConfined()) {
            assertThat(FiInfo.txAttr(hints).address()).isNotZero();
            assertThat(FiInfo.rxAttr(hints).address()).isNotZero();
            assertThat(FiInfo.epAttr(hints).address()).isNotZero();
            assertThat(FiInfo.domainAttr(hints).address()).isNotZero();
            assertThat(FiInfo.fabricAttr(hints).address()).isNotZero();

            FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), "sockets");
            FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), "tcp"); // frees the first copy
            FiDomainAttr.setName(FiInfo.domainAttr(hints), "lo");
            MemorySegment address = arena.allocate(16);
            address.set(JAVA_BYTE, 0, (byte) 2);
            FiInfo.setDestAddr(hints, address);
            // The Arena copy may go away now: fi_info holds its own.

            copy = Libfabric.dupinfo(hints);
            assertThat(FiFabricAttr.provName(FiInfo.fabricAttr(copy))).isEqualTo("tcp");
            assertThat(FiDomainAttr.name(FiInfo.domainAttr(copy))).isEqualTo("lo");
            assertThat(FiInfo.destAddrlen(copy)).isEqualTo(16);
            assertThat(FiInfo.destAddr(copy).mismatch(address)).isEqualTo(-1);
        } finally {
            Libfabric.freeinfo(copy); // frees prov_name, domain name and dest_addr with libc free()
            Libfabric.freeinfo(hints);
        }
    }

    @Test
    void getinfoListsProvidersAndReportsEnodataForUnknownOnes() {
        requireLibfabric();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment hints = Libfabric.allocinfo();
            try {
                FiFabricAttr.setProvName(FiInfo.fabricAttr(hints), "no-such-provider");
                assertThat(Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL, MemorySegment.NULL, 0, hints,
                        out)).isEqualTo(-FI_ENODATA);
            } finally {
                Libfabric.freeinfo(hints);
            }

            LibfabricException.check("fi_getinfo", Libfabric.getinfo(Libfabric.apiVersion(), MemorySegment.NULL,
                    MemorySegment.NULL, 0, MemorySegment.NULL, out));
            MemorySegment list = FiInfo.of(out.get(ADDRESS, 0));
            try {
                var providers = FiInfo.list(list).stream()
                        .map(i -> FiFabricAttr.provName(FiInfo.fabricAttr(i))).distinct().toList();
                LOG.info("fi_getinfo providers: {}", providers);
                assertThat(providers).isNotEmpty();
                assertThat(Libfabric.tostr(list, FI_TYPE_INFO)).contains("fi_info:", "fi_fabric_attr:");
            } finally {
                Libfabric.freeinfo(list);
            }
        }
    }

    @Test
    void strerrorAndTostrRenderLibfabricsOwnTexts() {
        requireLibfabric();
        assertThat(Libfabric.strerror(FI_EAGAIN)).isEqualTo("Resource temporarily unavailable");
        assertThat(Libfabric.strerror(FI_EAVAIL)).isNotBlank();
        assertThat(Libfabric.tostr(FI_MSG | FI_RMA, FI_TYPE_CAPS)).contains("FI_MSG", "FI_RMA");
        assertThat(Libfabric.tostr(FI_EP_RDM, FI_TYPE_EP_TYPE)).contains("FI_EP_RDM");
        LibfabricException e = new LibfabricException("fi_send", FI_EAGAIN);
        assertThat(e.isRetryable()).isTrue();
        assertThat(e).hasMessageContaining("fi_send").hasMessageContaining("-11");
    }

    @Test
    void emptyOpsTablesAndShortTablesYieldEnosysInsteadOfACrash() {
        // No library needed: the guard runs before any native call.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment ep = arena.allocate(FidEp.LAYOUT); // every table pointer NULL
            assertThat(FidEp.send(ep, MemorySegment.NULL, 0, MemorySegment.NULL, 0, MemorySegment.NULL))
                    .isEqualTo(-FI_ENOSYS);
            assertThat(FidEp.atomicvalid(ep, FI_UINT64, FI_SUM, arena.allocate(JAVA_LONG))).isEqualTo(-FI_ENOSYS);
            assertThat(Fid.close(ep)).isEqualTo(-FI_ENOSYS);

            // A table whose size ends before the slot, as an older provider would publish it.
            MemorySegment shortTable = arena.allocate(FiOpsMsg.LAYOUT);
            shortTable.set(JAVA_LONG, 0, FiOpsMsg.SEND); // size == offsetof(send): send is not covered
            ep.set(ADDRESS, FidEp.LAYOUT.byteOffset(java.lang.foreign.MemoryLayout.PathElement.groupElement("msg")),
                    shortTable);
            assertThat(FidEp.send(ep, MemorySegment.NULL, 0, MemorySegment.NULL, 0, MemorySegment.NULL))
                    .isEqualTo(-FI_ENOSYS);

            assertThatThrownBy(() -> FidCq.read(MemorySegment.NULL, MemorySegment.NULL, 0))
                    .isInstanceOf(NullPointerException.class);
        }
    }
}

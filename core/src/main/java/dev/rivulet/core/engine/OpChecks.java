package dev.rivulet.core.engine;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Operation;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;

/**
 * What an operation is checked for on the subscriber's thread, before it is built: whatever can be refused there is
 * refused with its typed error at subscription, not later from the progress loop.
 */
final class OpChecks {

    private static final MemoryAccess MEMORY = Internals.memory();

    private OpChecks() {
    }

    static void sendBuffer(Buffer buffer, MemoryDomain memory, Capabilities caps) {
        if (buffer.refCnt() <= 0) {
            throw new InvalidMemoryException("buffer was already released");
        }
        if (buffer.region().domain() != memory) {
            throw new InvalidMemoryException("buffer is not registered with this transport's memory domain");
        }
        long length = buffer.length();
        Buffer body = MEMORY.body(buffer);
        if (body != null) {
            if (body.refCnt() <= 0 || body.region().domain() != memory) {
                throw new InvalidMemoryException("a message's body must be a live buffer of this transport's memory");
            }
            length += body.length();
        }
        if (length > caps.maxMessageSize()) {
            throw new MessageTooLargeException("message of " + length + " bytes exceeds the maximum of "
                    + caps.maxMessageSize() + " on " + caps.transport());
        }
    }

    static void rma(RegisteredSlice local, RemoteMemory remote, Operation op, MemoryDomain memory,
                    Capabilities caps) {
        if (!caps.supports(op)) {
            throw new OperationNotSupportedException(caps.transport() + " does not offer " + op);
        }
        if (local == null || remote == null) {
            throw new InvalidRequestException("local slice and remote memory must not be null");
        }
        if (local.region().domain() != memory) {
            throw new InvalidMemoryException("local memory is not registered with this transport's memory domain");
        }
        if (!local.region().isOpen()) {
            throw new InvalidMemoryException("local memory region is closed");
        }
        // The whole range, also where it goes as pieces of at most maxRmaSize (RmaPieces): nothing a piece names lies
        // outside the window the caller was granted.
        if (local.length() > remote.length()) {
            throw new RemoteAccessException(op + " of " + local.length() + " bytes outside remote window of "
                    + remote.length() + " bytes");
        }
    }

    static void atomic(AtomicOp a, int width, RemoteMemory remote, Capabilities caps) {
        Operation cap = a.operation(width);
        if (!caps.supports(cap)) {
            throw new OperationNotSupportedException(caps.transport() + " does not offer " + cap);
        }
        if (remote == null) {
            throw new InvalidRequestException("remote memory is null");
        }
        if (remote.length() < width) {
            throw new RemoteAccessException("atomic of " + width + " bytes outside remote window of "
                    + remote.length() + " bytes");
        }
        // A handle's address is aligned as the memory it names where it is a virtual address or a software-checked
        // offset (NativeRegistration.checkedInSoftware keeps the alignment); libfabric providers that number a window
        // from 0 accept atomic grants only on 8-byte boundaries, where the two agree.
        if ((remote.address() & (width - 1)) != 0) {
            throw new InvalidRequestException("atomic target 0x" + Long.toHexString(remote.address())
                    + " is not " + width + "-byte aligned");
        }
    }
}

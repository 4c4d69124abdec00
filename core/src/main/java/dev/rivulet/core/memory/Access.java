package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/** What a registration allows, as the access flags of {@code ibv_reg_mr} / {@code fi_mr_reg}. */
public enum Access {
    LOCAL_READ,
    LOCAL_WRITE,
    REMOTE_READ,
    REMOTE_WRITE,
    REMOTE_ATOMIC;

    /** Local use only: the region can be sent from and received into, but never exposed to a peer. */
    public static final Set<Access> LOCAL = Set.copyOf(EnumSet.of(LOCAL_READ, LOCAL_WRITE));

    /** Everything, including remote read, write and atomics. */
    public static final Set<Access> ALL = Set.copyOf(EnumSet.allOf(Access.class));

    /** The rights a peer can be granted: remote read, write and atomics. */
    public static final Set<Access> REMOTE = Set.copyOf(EnumSet.of(REMOTE_READ, REMOTE_WRITE, REMOTE_ATOMIC));

    /** {@code rights} as a set; at least one must be named. */
    public static Set<Access> setOf(Access... rights) {
        if (rights == null || rights.length == 0 || Arrays.asList(rights).contains(null)) {
            throw new InvalidRequestException("name the rights, none of them null");
        }
        return Set.copyOf(EnumSet.copyOf(Arrays.asList(rights)));
    }
}

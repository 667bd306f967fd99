package io.reactiveregistry.protocol.message;

import java.util.List;

/**
 * The cluster's membership once a change of it is committed: every member as
 * {@code id=host:port/raftPort}.
 */
public record MemberList(List<String> members) {}

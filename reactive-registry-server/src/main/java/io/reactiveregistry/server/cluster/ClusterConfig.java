package io.reactiveregistry.server.cluster;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which node this is and who its members are. A member is written {@code id=host:port/raftPort}:
 * its RSocket TCP address and its Raft address, which share the host. Members are separated by
 * commas: {@code n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290}. Without
 * members the server is a one-node cluster ({@link #single()}), exactly as before clusters existed.
 *
 * @param nodeId this node's id; one of the members' ids (null for a single node)
 * @param members every member, this node included, in the order given (empty for a single node)
 */
public record ClusterConfig(String nodeId, List<Member> members) {
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Pattern MEMBER = Pattern.compile("([^=]+)=(\\[[^\\]]+\\]|[^:/\\[\\]]+):(\\d+)/(\\d+)");

  /** One member: its id, host, RSocket TCP port and Raft port. */
  public record Member(String id, String host, int port, int raftPort) {
    public String address() {
      return host + ":" + port;
    }

    public String raftAddress() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + raftPort;
    }

    @Override
    public String toString() {
      return id + "=" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port + "/" + raftPort;
    }
  }

  public ClusterConfig {
    members = List.copyOf(members);
  }

  /** A server on its own: today's one-node group. */
  public static ClusterConfig single() {
    return new ClusterConfig(null, List.of());
  }

  /** True when the server is one of several members. */
  public boolean clustered() {
    return !members.isEmpty();
  }

  /** This node's own entry; only for a clustered server. */
  public Member self() {
    return members.stream().filter(member -> member.id().equals(nodeId)).findFirst().orElseThrow();
  }

  /**
   * Reads {@code --node-id} and {@code --members}; both absent is a single node. Refuses, naming
   * the rule, a malformed member, a repeated id or address, and a node id that is not a member.
   */
  public static ClusterConfig parse(String nodeId, String members) {
    boolean noMembers = members == null || members.isBlank();
    if (noMembers) {
      if (nodeId != null && !nodeId.isBlank()) {
        throw new IllegalArgumentException("--node-id needs --members: the list of every member, "
            + "for example n1=127.0.0.1:7070/7090,n2=127.0.0.1:7170/7190,n3=127.0.0.1:7270/7290");
      }
      return single();
    }
    if (nodeId == null || nodeId.isBlank()) {
      throw new IllegalArgumentException("--members needs --node-id: which of the members this node is");
    }
    List<Member> parsed = new ArrayList<>();
    Set<String> ids = new LinkedHashSet<>();
    Set<String> addresses = new LinkedHashSet<>();
    for (String entry : members.split(",")) {
      Member member = member("--members", entry.strip());
      if (!ids.add(member.id())) {
        throw new IllegalArgumentException("--members names member '" + member.id() + "' twice");
      }
      if (!addresses.add(member.host() + ":" + member.port()) || !addresses.add(member.host() + ":" + member.raftPort())) {
        throw new IllegalArgumentException("--members: member '" + member.id() + "' uses a port another member "
            + "(or its own other port) already uses on " + member.host());
      }
      parsed.add(member);
    }
    if (!ids.contains(nodeId)) {
      throw new IllegalArgumentException("--node-id '" + nodeId + "' is not one of the members " + ids);
    }
    return new ClusterConfig(nodeId, parsed);
  }

  /**
   * One member as {@code id=host:port/raftPort}; refused, naming {@code field} and the rule, when
   * malformed.
   */
  public static Member member(String field, String entry) {
    Matcher matcher = MEMBER.matcher(entry);
    if (!matcher.matches()) {
      throw new IllegalArgumentException(field + " entry '" + entry + "' must be id=host:port/raftPort, for "
          + "example n1=127.0.0.1:7070/7090");
    }
    String id = matcher.group(1);
    if (!ID.matcher(id).matches()) {
      throw new IllegalArgumentException(field + ": member id '" + id + "' must be 1-64 letters, digits, '-', "
          + "'_' or '.', starting with a letter or digit");
    }
    String host = matcher.group(2);
    if (host.startsWith("[")) {
      host = host.substring(1, host.length() - 1);
    }
    return new Member(id, host, port(field, id, "port", matcher.group(3)),
        port(field, id, "raft port", matcher.group(4)));
  }

  /** The same node with another member list (the membership changed online). */
  public ClusterConfig withMembers(List<Member> changed) {
    return new ClusterConfig(nodeId, changed);
  }

  /** The member with this id, if it is one. */
  public Optional<Member> member(String id) {
    return members.stream().filter(member -> member.id().equals(id)).findFirst();
  }

  /** How many members make a majority. */
  public int majority() {
    return members.size() / 2 + 1;
  }

  private static int port(String field, String id, String which, String value) {
    int port;
    try {
      port = Integer.parseInt(value);
    } catch (NumberFormatException e) {
      port = -1;
    }
    if (port < 1 || port > 65_535) {
      throw new IllegalArgumentException(field + ": member '" + id + "' has " + which + " " + value
          + "; a port is from 1 to 65535");
    }
    return port;
  }

  @Override
  public String toString() {
    return String.join(",", members.stream().map(Member::toString).toList());
  }
}

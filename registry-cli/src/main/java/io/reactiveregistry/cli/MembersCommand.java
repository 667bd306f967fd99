package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.MemberChange;
import io.reactiveregistry.protocol.message.MemberList;
import io.reactiveregistry.protocol.message.ServerInfo;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/**
 * {@code registry-cli members}: the cluster's members as the target node sees them; {@code add}
 * and {@code remove} change them online.
 */
@Command(name = "members", mixinStandardHelpOptions = true,
    description = "Lists the cluster's members as the target sees them: id, address, Raft address, state, commit "
        + "index. A single server lists itself.")
final class MembersCommand implements Callable<Integer> {
  /** A membership change waits for a new member to catch up; the server gives up after 60 s. */
  private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(70);

  @ParentCommand
  RegistryCli cli;

  @Option(names = "--json", description = "One JSON object per member")
  boolean json;

  @Override
  public Integer call() {
    return cli.run(session -> {
      ServerInfo info = JsonCodec.json().decode(session.request(Route.SERVER_INFO.routeName(), "{}"), ServerInfo.class);
      if (info.cluster() == null) {
        // Durable state in memory: no Raft group, the node alone.
        cli.print(json ? "{\"id\":\"" + info.nodeId() + "\",\"state\":\"single\"}" : info.nodeId() + "  single");
        return;
      }
      if (json) {
        info.cluster().members().forEach(member -> cli.print(JsonCodec.json().encodeToString(member)));
        return;
      }
      Table table = new Table("ID", "ADDRESS", "RAFT", "STATE", "COMMIT");
      for (ClusterInfo.Member member : info.cluster().members()) {
        table.row(member.id() + (member.id().equals(info.nodeId()) ? " *" : ""), member.address(),
            member.raftAddress(), member.state(), String.valueOf(member.commitIndex()));
      }
      table.print(cli.out);
    });
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Adds a member to the cluster (start it first, with --join or its own entry as --members); "
          + "answered once the member has caught up and the new membership is committed. To move a member to "
          + "another machine, start the new one and use replace")
  int add(@Parameters(paramLabel = "MEMBER", description = "id=host:port/raftPort, e.g. n4=127.0.0.1:7370/7390")
      String member) {
    return change(Route.ADMIN_MEMBERS_ADD, MemberChange.add(member));
  }

  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = "Removes a member (the leader too) from the cluster; answered once the new membership is "
          + "committed. Stop the removed member afterwards.")
  int remove(@Parameters(paramLabel = "NODE", description = "the member's id") String node) {
    return change(Route.ADMIN_MEMBERS_REMOVE, MemberChange.remove(node));
  }

  @Command(name = "replace", mixinStandardHelpOptions = true,
      description = "Replaces a member by a new one (start the new one first, with --join): the new member is "
          + "added, then the old one removed, answered once both changes are committed. Stop the old member "
          + "afterwards.")
  int replace(@Parameters(index = "0", paramLabel = "NODE", description = "the id of the member to replace")
      String node, @Parameters(index = "1", paramLabel = "MEMBER",
      description = "the new member, id=host:port/raftPort under an id of its own, e.g. n4=127.0.0.1:7370/7390")
      String member) {
    return change(Route.ADMIN_MEMBERS_REPLACE, MemberChange.replace(node, member));
  }

  private int change(Route route, MemberChange change) {
    return cli.run(session -> {
      MemberList members = JsonCodec.json().decode(session.request(route.routeName(),
          JsonCodec.json().encodeToString(change), CHANGE_TIMEOUT), MemberList.class);
      members.members().forEach(cli::print);
    });
  }
}

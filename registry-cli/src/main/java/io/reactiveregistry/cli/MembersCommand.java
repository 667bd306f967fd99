package io.reactiveregistry.cli;

import io.reactiveregistry.protocol.Route;
import io.reactiveregistry.protocol.codec.JsonCodec;
import io.reactiveregistry.protocol.message.ClusterInfo;
import io.reactiveregistry.protocol.message.ServerInfo;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** {@code registry-cli members}: the cluster's members as the target node sees them. */
@Command(name = "members", mixinStandardHelpOptions = true,
    description = "Lists the cluster's members as the target sees them: id, address, Raft address, state, commit "
        + "index. A single server lists itself.")
final class MembersCommand implements Callable<Integer> {
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
}

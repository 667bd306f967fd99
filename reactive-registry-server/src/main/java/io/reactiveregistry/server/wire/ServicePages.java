package io.reactiveregistry.server.wire;

import io.reactiveregistry.protocol.ErrorCode;
import io.reactiveregistry.protocol.message.ServiceList;
import io.reactiveregistry.server.core.Results.ServiceSummary;
import io.reactiveregistry.server.errors.EdgeRefusal;
import java.util.ArrayList;
import java.util.List;

/**
 * One page of a service listing, with the contract's paging rules: {@code page} from 1 (default
 * 1), {@code pageSize} from 1 to {@value #MAX_PAGE_SIZE} (default {@value #DEFAULT_PAGE_SIZE});
 * {@code count} is the number of services on all pages. Shared by {@code service.list} and
 * {@code GET /api/v1/services}, so both page alike.
 */
public final class ServicePages {
  public static final int MAX_PAGE_SIZE = 1_000;
  public static final int DEFAULT_PAGE_SIZE = 100;

  private ServicePages() {}

  public static ServiceList page(List<ServiceSummary> all, Integer page, Integer pageSize) {
    int number = page == null ? 1 : page;
    int size = pageSize == null ? DEFAULT_PAGE_SIZE : pageSize;
    if (number < 1) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "page must be 1 or more");
    }
    if (size < 1 || size > MAX_PAGE_SIZE) {
      throw new EdgeRefusal(ErrorCode.INVALID_PARAM, "pageSize must be between 1 and " + MAX_PAGE_SIZE);
    }
    int from = (int) Math.min(all.size(), (long) (number - 1) * size);
    int to = Math.min(all.size(), from + size);
    List<io.reactiveregistry.protocol.message.ServiceSummary> services = new ArrayList<>(to - from);
    for (ServiceSummary summary : all.subList(from, to)) {
      services.add(wire(summary));
    }
    return new ServiceList(all.size(), services);
  }

  /** A service's summary as the contract carries it (service.list, catalog.subscribe). */
  public static io.reactiveregistry.protocol.message.ServiceSummary wire(ServiceSummary summary) {
    return new io.reactiveregistry.protocol.message.ServiceSummary(summary.service().namespace(),
        summary.service().group(), summary.service().service(), summary.ephemeral(), summary.instanceCount(),
        summary.healthyCount(), summary.protectionTriggered());
  }
}

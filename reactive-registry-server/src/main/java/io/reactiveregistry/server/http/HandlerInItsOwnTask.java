package io.reactiveregistry.server.http;

import io.netty.channel.EventLoop;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.reactivestreams.Publisher;
import reactor.core.Exceptions;
import reactor.core.publisher.Mono;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * An HTTP server's handler, run for each request in an event-loop task of its own (the
 * connection's loop), not within the task in which Reactor Netty hands the request over.
 *
 * <p>Why: Reactor Netty 1.3.7 can stop reading a keep-alive connection for good (its issue 4361,
 * fixed after the versions served here). A request that arrives before the previous answer on
 * its connection is done with is held; when the previous answer is done with, the held request is
 * handed over, and if its answer is also done with before that hand-over returns, nothing asks the
 * socket for the connection's next request, and no idle timeout reaps the connection. Both happen
 * here: an answer written from another thread (the Eureka door renders its documents on CPU
 * workers, a durable write completes on storage's thread) is done with only in a later event-loop
 * task, so the client's next request, sent as soon as it read the answer, may be held; and
 * {@code /health} or the request layer's GETs answer at once, within the hand-over. A Eureka
 * client's next fetch then waited for its own timeout. A handler started in a task of its own
 * cannot finish within the hand-over. It costs one event-loop task per request.
 */
public final class HandlerInItsOwnTask {
  private HandlerInItsOwnTask() {}

  public static BiFunction<HttpServerRequest, HttpServerResponse, Publisher<Void>> of(
      BiFunction<? super HttpServerRequest, ? super HttpServerResponse, ? extends Publisher<Void>> handler) {
    return (request, response) -> {
      AtomicReference<EventLoop> loop = new AtomicReference<>();
      response.withConnection(connection -> loop.set(connection.channel().eventLoop()));
      return Mono.create(sink -> run(loop.get(), () -> {
        Publisher<Void> answer;
        try {
          answer = handler.apply(request, response);
        } catch (Throwable e) { // as Reactor Netty treats a handler that throws: an error answer, not a hang
          Exceptions.throwIfJvmFatal(e);
          sink.error(e);
          return;
        }
        // Cancelled before this task ran (the connection closed): the subscription is disposed at once.
        sink.onCancel(Mono.from(answer).contextWrite(sink.contextView()).subscribe(null, sink::error, sink::success));
      }));
    };
  }

  private static void run(EventLoop loop, Runnable task) {
    try {
      loop.execute(task);
    } catch (RejectedExecutionException shuttingDown) {
      task.run(); // the loop is going away with its connections: there is no later task
    }
  }
}

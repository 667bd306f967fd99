'use strict';
// Usage: node client.js ws://127.0.0.1:7071/rsocket
// Registers an instance, queries the service, subscribes to it, and prints one JSON line per step.
const {
  RSocketClient, BufferEncoders, encodeCompositeMetadata, encodeRoute,
  MESSAGE_RSOCKET_COMPOSITE_METADATA, MESSAGE_RSOCKET_ROUTING,
} = require('rsocket-core');
const RSocketWebSocketClient = require('rsocket-websocket-client').default;
const WebSocket = require('ws');

const url = process.argv[2];
const route = (name) => encodeCompositeMetadata([[MESSAGE_RSOCKET_ROUTING, encodeRoute(name)]]);
const payload = (name, body) => ({ data: Buffer.from(JSON.stringify(body)), metadata: route(name) });
const print = (step, value) => console.log(JSON.stringify({ step, value }));
let done = false;
const fail = (step, error) => {
  if (done) return; // closing the client at the end fails what is still in flight
  console.log(JSON.stringify({ step, error: String(error && error.message || error) }));
  process.exit(1);
};

const client = new RSocketClient({
  setup: {
    keepAlive: 10000, lifetime: 30000,
    dataMimeType: 'application/json',
    metadataMimeType: MESSAGE_RSOCKET_COMPOSITE_METADATA.string,
    payload: { data: Buffer.from(JSON.stringify({ client: 'node-interop' })) },
  },
  transport: new RSocketWebSocketClient({ url, wsCreator: (u) => new WebSocket(u) }, BufferEncoders),
});

client.connect().subscribe({
  onError: (e) => fail('connect', e),
  onComplete: (socket) => {
    const registration = { service: 'orders', instance: { ip: '127.0.0.5', port: 8080, metadata: { runtime: 'node' } } };
    socket.requestResponse(payload('instance.register', registration)).subscribe({
      onError: (e) => fail('register', e),
      onComplete: (answer) => {
        print('register', JSON.parse(answer.data.toString()));
        socket.fireAndForget(payload('instance.heartbeat', {}));
        socket.requestResponse(payload('service.query', { service: 'orders' })).subscribe({
          onError: (e) => fail('query', e),
          onComplete: (snapshot) => {
            print('query', JSON.parse(snapshot.data.toString()));
            socket.requestResponse(payload('instance.register', { service: 'orders', instance: { ip: '127.0.0.5', port: 0 } }))
              .subscribe({
                onComplete: () => fail('invalid-register', 'accepted a port of 0'),
                onError: (e) => {
                  print('invalid-register', JSON.parse(e.source.message));
                  subscribe(socket);
                },
              });
          },
        });
      },
    });
  },
});

function subscribe(socket) {
  let seen = 0;
  socket.requestStream(payload('service.subscribe', { service: 'orders' })).subscribe({
    onSubscribe: (subscription) => subscription.request(2),
    onError: (e) => fail('subscribe', e),
    onNext: (event) => {
      seen++;
      print('event', JSON.parse(event.data.toString()));
      if (seen === 1) {
        socket.requestResponse(payload('instance.register', { service: 'orders', instance: { ip: '127.0.0.6', port: 8080 } }))
          .subscribe({ onError: (e) => fail('second-register', e), onComplete: () => {} });
      } else {
        done = true;
        client.close();
        process.exit(0);
      }
    },
  });
}

setTimeout(() => fail('timeout', 'no answer within 20 s'), 20000).unref();

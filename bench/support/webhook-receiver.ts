/**
 * The webhook benchmark's receivers, in their own process (their CPU is not the dispatcher's): `/ok/*`
 * answers 204, `/down/*` never answers (the attempt times out). Parent messages: {cmd:'count'} ->
 * {count} (deliveries to `/ok/*` since the last count); {cmd:'exit'}.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
const server = http.createServer((req, res) => {
  if (req.url?.startsWith('/down')) return;
  req.resume();
  req.on('end', () => {
    count++;
    res.writeHead(204).end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ cmd: 'up', port: (server.address() as AddressInfo).port });
});
process.on('message', (msg: { cmd: string }) => {
  if (msg.cmd === 'count') {
    process.send?.({ cmd: 'count', count });
    count = 0;
  } else process.exit(0);
});

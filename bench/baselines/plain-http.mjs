import { createServer } from 'node:http';

// Baseline: a node:http server that only answers. Every figure of the app is also given as a
// ratio to this, the floor of what Node does for one request on this machine. Plain JavaScript,
// run without a loader like every subject (processes.ts).

const port = Number(process.env.PORT);
createServer((request, response) => {
  request.resume();
  response.writeHead(200, { 'content-type': 'text/plain' }).end();
}).listen(port);

import { createServer, type Server } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";

// The suite's own fetch (support/fresh-connections.ts): no request of a test is sent on a connection
// kept from an earlier one, so none can meet a server closing it as idle ("other side closed").
let server: Server;
let origin: string;
const connections: { socket: Socket; requests: number }[] = [];

beforeAll(async () => {
  // A server that would keep every connection open for a minute: only the client can end them.
  server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    connections.find((c) => c.socket === req.socket)!.requests++;
    req
      .resume()
      .on("end", () =>
        res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}'),
      );
  });
  server.on("connection", (socket: Socket) => {
    connections.push({ socket, requests: 0 });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it("sends each request on a connection of its own, closed after the answer", async () => {
  for (const method of ["GET", "POST", "GET"]) {
    const res = await fetch(`${origin}/control`, {
      method,
      body: method === "POST" ? "{}" : undefined,
    });
    expect(await res.json()).toEqual({ ok: true });
    // Time for a kept connection to be offered back to the pool, as between a test's steps.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(connections.map((c) => c.requests)).toEqual([1, 1, 1]);
  // None is left open for a later request to be written on.
  await expect.poll(() => connections.filter((c) => !c.socket.closed).length).toBe(0);
});

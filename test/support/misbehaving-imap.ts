import { createServer, type Server, type Socket } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    misbehavingImap: { noCrlf: number; bigLiteral: number; silent: number; untaggedFlood: number };
  }
}

/**
 * vitest globalSetup: three loopback "IMAP servers" that misbehave in the ways the client must
 * bound (src/lib/imap/reader.ts): one streams a greeting that never ends with CRLF, one announces
 * a literal of 1 GiB in its greeting and streams it, one greets and then never answers, and one
 * answers every command with untagged responses that never end (no tagged completion).
 */
export default async function setup(project: TestProject) {
  const open = new Set<Socket>();
  const chunk = Buffer.alloc(16 * 1024, "a");
  const track = (socket: Socket) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => {});
  };
  const stream = (socket: Socket, head: string) => {
    track(socket);
    socket.write(head);
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk));
    };
    socket.on("drain", pump);
    pump();
  };
  const servers: Server[] = [
    createServer((s) => stream(s, "* OK ")),
    createServer((s) => stream(s, "* OK {1073741824}\r\n")),
    createServer((s) => {
      track(s);
      s.write("* OK silent server ready\r\n");
    }),
    createServer((s) => {
      track(s);
      s.write("* OK flooding server ready\r\n");
      const flood = Buffer.from("* 1 EXISTS\r\n".repeat(1024));
      s.once("data", () => {
        const pump = () => {
          while (!s.destroyed && s.write(flood));
        };
        s.on("drain", pump);
        pump();
      });
    }),
  ];
  const ports = await Promise.all(
    servers.map(
      (server) =>
        new Promise<number>((resolve) =>
          server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
        ),
    ),
  );
  project.provide("misbehavingImap", {
    noCrlf: ports[0],
    bigLiteral: ports[1],
    silent: ports[2],
    untaggedFlood: ports[3],
  });
  return async () => {
    for (const s of open) s.destroy();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
  };
}

/** Talking to the agent (agent.ts) over its socket, and starting one for `vault unlock`. */
import { spawn } from "node:child_process";
import { connect } from "node:net";
import type { AgentAnswer, AgentRequest } from "./agent";
import { CliError, EXIT } from "./errors";
import { socketPath } from "./state";

/** The agent's answer, or null when no agent listens (the vault is locked). */
export function tryAsk(req: AgentRequest): Promise<(AgentAnswer & { ok: true }) | null> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath());
    let data = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => (data += d));
    socket.on("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "ENOENT" || e.code === "ECONNREFUSED") resolve(null);
      else reject(new CliError(`The agent did not answer: ${e.message}`));
    });
    socket.on("end", () => {
      let answer: AgentAnswer;
      try {
        answer = JSON.parse(data) as AgentAnswer;
      } catch {
        return reject(new CliError("The agent's answer was cut off"));
      }
      if (!answer.ok) reject(new CliError(answer.message, answer.exit, answer.code));
      else resolve(answer);
    });
    socket.on("connect", () => socket.write(`${JSON.stringify(req)}\n`));
  });
}

export async function ask(req: AgentRequest): Promise<AgentAnswer & { ok: true }> {
  const answer = await tryAsk(req);
  if (!answer) throw new CliError("The vault is locked: run `vault unlock`", EXIT.LOCKED);
  return answer;
}

/** Starts an agent in the background (this same program, `__agent`) and waits for its socket. */
export async function startAgent(): Promise<void> {
  const child = spawn(process.execPath, [process.argv[1]!, "__agent"], {
    detached: true,
    stdio: process.env.VAULT_AGENT_DEBUG ? "inherit" : "ignore",
    env: process.env,
  });
  child.unref();
  for (let waited = 0; waited < 10_000; waited += 25) {
    if (await tryAsk({ op: "status" }).catch(() => null)) return;
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new CliError("The agent did not start");
}

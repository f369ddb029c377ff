/**
 * The question `vault ssh-agent --confirm` asks before a connection's first signature with a key,
 * as OpenSSH's agent asks it for a key added with `ssh-add -c`: the program named by SSH_ASKPASS
 * (in the agent's environment, as it was when the agent started) is run with the prompt as its one
 * argument and SSH_ASKPASS_PROMPT=confirm, so a dialog can show yes and no instead of a text box.
 * Yes is an exit status of 0 with nothing printed or "yes" (OpenSSH's ask_permission); anything
 * else is no: another status, another answer, a program that cannot start, no SSH_ASKPASS at all,
 * or the client hanging up while it asks. Deny by default: the agent has no terminal to ask at.
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";
import { fingerprintOf } from "../core/entry";

/** Enough for "yes" and a newline; a program that prints more is not saying yes. */
const MAX_ANSWER = 64;

export async function askToUse(
  key: { blob: string; comment: string },
  client: Socket,
  log: (line: string) => void,
): Promise<boolean> {
  const askpass = process.env.SSH_ASKPASS;
  const fingerprint = await fingerprintOf(Buffer.from(key.blob, "base64"));
  if (!askpass) {
    log(`vault ssh-agent: no SSH_ASKPASS to confirm ${fingerprint} with: signature refused`);
    return false;
  }
  const prompt = `Allow use of key ${key.comment || "(no comment)"}?\nKey fingerprint ${fingerprint}.`;
  return new Promise<boolean>((resolve) => {
    const child = spawn(askpass, [prompt], {
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, SSH_ASKPASS_PROMPT: "confirm" },
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (d: string) => {
      out += d;
      if (out.length > MAX_ANSWER) child.kill();
    });
    // A client that gave up takes its question with it: no dialog left waiting for no one.
    const hangUp = () => child.kill();
    client.once("close", hangUp);
    child.on("error", (e) => {
      client.off("close", hangUp);
      log(`vault ssh-agent: ${askpass} did not run (${e.message}): signature refused`);
      resolve(false);
    });
    child.on("close", (code) => {
      client.off("close", hangUp);
      const said = out.replace(/\r?\n$/, "");
      resolve(code === 0 && (said === "" || said.toLowerCase() === "yes"));
    });
  });
}

import { taskProgress } from "../../../durable-objects/task-progress";
import { dbFor, directoryDb } from "../../db/client";
import type { Bindings, Config } from "../../env";
import type { RequestMeta } from "../../http/types";
import { resolveChatTarget, type ChatRequest } from "./chat-intent";
import { chatStream } from "./chat-stream";
import { createResetTask } from "./service";

export type ChatResetInput = ChatRequest & { clientPublicKey?: JsonWebKey };

/**
 * POST /api/chat/reset: resolves the service, creates the task exactly as POST /api/tasks/reset
 * does (outbound guard, mailbox check, queue), then relays the task's progress as markdown.
 * Everything that can refuse the request does so before the first byte of the stream.
 */
export async function startChatReset(
  env: Bindings,
  config: Config,
  userId: string,
  input: ChatResetInput,
  meta?: RequestMeta,
): Promise<ReadableStream<Uint8Array>> {
  const target = await resolveChatTarget(dbFor(env, userId), directoryDb(env), userId, input);
  // A null address means no active mailbox: createResetTask refuses that with 422 before writing.
  const email = target.email ?? "";
  const { taskId } = await createResetTask(
    env,
    config,
    userId,
    {
      serviceUrl: target.serviceUrl,
      email,
      passwordId: target.passwordId,
      clientPublicKey: input.clientPublicKey,
    },
    meta,
  );
  const upstream = await taskProgress(env.TASK_PROGRESS, taskId).stream();
  return chatStream(
    {
      taskId,
      svc: target.svc,
      serviceUrl: target.serviceUrl,
      email,
      passwordId: target.passwordId,
      waitSeconds: config.RESET_EMAIL_WAIT_SECONDS,
    },
    upstream.body as ReadableStream<Uint8Array>,
  );
}

import { beforeEach } from "vitest";
import { ARTIFACTS } from "./browser";
import { recordFailure } from "./failures";

// Every browser test: on failure, the open pages' screenshots and last words (support/failures.ts).
beforeEach(({ task, onTestFailed }) => {
  onTestFailed(async () => {
    console.error(`evidence of "${task.name}":\n${await recordFailure(ARTIFACTS, task.name)}`);
  }, 30_000);
});

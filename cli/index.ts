/** The bundle's entry (cli/bin/vault.mjs builds it): runs a command and exits with its code. */
import { main } from "./main";

const code = await main(process.argv.slice(2));
// The agent (-1) keeps running on its socket; every command ends here, with its own code.
if (code >= 0) {
  process.exitCode = code;
  // Output still being written to a pipe is flushed before exit.
  process.stdout.write("", () => process.exit(code));
}

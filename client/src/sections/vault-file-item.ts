/** An entry of the vault's own export file (vault-file.ts), on its own so the preview's rows can name it. */
import type { EntrySecrets } from "../../../core/crypto";

/** One entry of the file: what the vault shows of it and everything its envelope held. */
export type VaultFileItem = {
  id: string;
  name: string;
  website: string | null;
  url: string | null;
  tags: string[];
  created_at?: string;
  updated_at?: string;
  secrets: EntrySecrets;
};

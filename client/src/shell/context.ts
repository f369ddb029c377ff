/**
 * The contract between the app shell and its sections and entry tools (/work/SHELL.md; see
 * docs/decisions/client.md, "Client: app shell, OpenID Connect sign-in, journeys between people"). Sections get an AppContext; entry tools an EntryContext.
 */
import type { ApiClient } from "../../../core/api";
import type { EntrySecrets, VaultKeys, TrustStore } from "../../../core/crypto";
import type { LiveSyncTopic } from "../../../src/kernel/live-sync";
import type { LocalDb, LocalEntry, Session } from "../../../core/store";
import type { SyncEngine } from "../../../core/sync";
import type { EntryInput, Vault } from "../../../core/vault";

export type Unmount = () => void;

/** A toast's button, e.g. Undo after a delete. */
export type ToastAction = { label: string; run: () => void };

export interface AppContext {
  /** The signed-in user (id, email). */
  session: Session;
  api: ApiClient;
  /** The local IndexedDB store (entries, pending changes, metadata). */
  db: LocalDb;
  /** The unlocked vault keys: sections only exist while the vault is unlocked. */
  keys: VaultKeys;
  /** Encrypts, indexes and queues entry changes (works offline). */
  vault: Vault;
  /** What this device has learnt of the vault and of contacts' keys (floors, pins): never lowered. */
  trust: TrustStore;
  /** The sync engine: `syncNow()` pushes queued changes and pulls. */
  sync: SyncEngine;
  /** The path after the section's own (e.g. "/abc" for "/emergency/abc"), "" when none. */
  subpath: string;
  /** Client-side navigation to another path of the app (pushes history). */
  navigate(path: string): void;
  /** A short status message for the person (aria-live), with a button when `action` is given. */
  toast(message: string, action?: ToastAction): void;
  /** Repaints the section (its onSynced listeners) and the header's status, one paint at a time. */
  refresh(): Promise<void>;
  /** After a local change: repaints, then asks for a sync now (online) or a background sync (offline). */
  changed(): Promise<void>;
  /** Called after every sync that changed or may have changed local data; returns an unsubscribe. */
  onSynced(listener: () => void | Promise<void>): Unmount;
  /**
   * Called when live sync says `topic` changed for this user on the server (a share accepted or
   * revoked, an emergency record moved): what the delta pull does not carry. Returns an unsubscribe.
   */
  onLive(topic: LiveSyncTopic, listener: () => void | Promise<void>): Unmount;
}

export interface SectionModule {
  mount(root: HTMLElement, app: AppContext): void | Unmount | Promise<void | Unmount>;
}

export interface SectionDef {
  id: string;
  title: string;
  /** The section's path; deeper paths (`<path>/...`) open the same section with `subpath` set. */
  path: string;
  /** The navigation group it is listed under; none: the top of the navigation. */
  group?: string;
  load: () => Promise<SectionModule>;
}

export interface EntryContext {
  app: AppContext;
  /** The entry's id (server id once synced). */
  id: string;
  /** The local copy: name, website, url, tags, and the encrypted envelope. */
  entry: LocalEntry;
  /** The decrypted secrets. */
  fields: EntrySecrets;
  /** Saves changed fields through the vault and the sync queue (works offline). */
  save(changes: Partial<EntryInput>): Promise<void>;
}

export interface EntryToolModule {
  mount(root: HTMLElement, entry: EntryContext): void | Unmount | Promise<void | Unmount>;
}

export interface EntryToolDef {
  id: string;
  title: string;
  /** A tool for a website account (its codes, its reset, its session): not shown for a card or a key. */
  loginOnly?: boolean;
  load: () => Promise<EntryToolModule>;
}

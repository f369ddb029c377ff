export type MailSpec = {
  from: string;
  to?: string;
  subject: string;
  date?: Date | string | number;
  body?: string;
};
export type Dovecot = {
  port: number;
  dir: string;
  maildirOf(user: string): string;
  addUser(user: string, password: string, messages?: (MailSpec | string)[]): void;
  replaceMessages(user: string, messages: (MailSpec | string)[]): void;
  appendMessages(user: string, messages: (MailSpec | string)[]): void;
  stop(): Promise<void>;
};
export function freePort(): Promise<number>;
export function startDovecot(opts?: {
  users?: { user: string; password: string; messages?: (MailSpec | string)[] }[];
  prefix?: string;
  port?: number;
}): Promise<Dovecot>;
export function rfc822(m: MailSpec): string;
export function writeMaildir(maildir: string, messages: (MailSpec | string)[]): void;
export function startRecordingProxy(
  targetPort: number,
): Promise<{ port: number; commandsFor(user: string): string[]; close(): Promise<void> }>;

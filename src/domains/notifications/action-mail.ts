import type { Mail } from "./mailer";

/**
 * Every mail the service sends ends the same way: one sentence naming what the person does, then
 * the absolute link where they do it. A mail is read outside the app, so a path alone leads
 * nowhere; the link is built on the deployment's APP_ORIGIN (a path is all that is left when the
 * operator has not set it; docs/operations.md lists it among production's settings).
 */
export type ActionMail = {
  to: string;
  subject: string;
  kind: string;
  body: string;
  action: string;
  path: string;
};

export function appLink(origin: string, path: string): string {
  return origin ? new URL(path, origin).href : path;
}

export function actionMail(origin: string, m: ActionMail): Mail {
  return {
    to: m.to,
    subject: m.subject,
    kind: m.kind,
    text: `${m.body}\n\n${m.action}:\n${appLink(origin, m.path)}\n`,
  };
}

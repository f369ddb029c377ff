/** The notifications domain's public surface: other domains and the entry import only this file. */
export { registerNotificationRoutes } from "./routes";
export { notificationInsert, notify } from "./notify";
export { sendQuietly, type Mail, type Mailer } from "./mailer";
export { actionMail, appLink } from "./action-mail";
export { consumeMailBatch, mailerFor, MAIL_QUEUE_NAME, type MailMessage } from "./mail-queue";
export { retryParkedMail } from "./mail-outbox";

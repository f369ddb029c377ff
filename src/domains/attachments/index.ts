/** The attachments domain's public surface: other domains and the entry import only this file. */
export { registerAttachmentRoutes } from "./routes";

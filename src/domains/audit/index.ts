/** The audit domain's public surface: other domains and the entry import only this file. */
export { auditInsert, recordAudit, type AuditInput } from "./service";

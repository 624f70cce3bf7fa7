/** What the dashboard API answers (README "Dashboard API"). */
export interface VersionRow {
  tag: string
  state: string
  snippets: number
  tokens: number
  updatedAt: string | null
}

export interface LibraryRow {
  id: string
  title: string
  description: string
  sourceKind: string
  sourceUrl: string
  private: boolean
  /** The teamspace whose private library it is (cloud); null for the install's own. */
  team: string | null
  imported: boolean
  state: 'initial' | 'queued' | 'processing' | 'finalized' | 'error'
  progress: string | null
  errorCode: string | null
  errorMessage: string | null
  snippets: number
  tokens: number
  updatedAt: string | null
  versions: VersionRow[]
  refreshable: boolean
  refreshBlockedReason: string | null
}

export interface JobRow {
  id: number
  kind: string
  libraryId: string | null
  version: string | null
  state: 'queued' | 'running' | 'succeeded' | 'failed'
  position: number | null
  progress: string | null
  errorCode: string | null
  errorMessage: string | null
  createdAt: string
  startedAt: string | null
  finishedAt: string | null
  elapsedMs: number | null
  attempts: number
  /** Running when its process died; it runs again at the next server start. */
  interrupted: boolean
  warnings: number
}

export interface LogLine {
  id: number
  time: string
  level: 'info' | 'warn' | 'error'
  message: string
  fields?: Record<string, unknown>
}

export interface KeyRow {
  id: number
  name: string
  preview: string
  createdAt: string
  lastUsedAt: string | null
  revokedAt: string | null
}

export type UsageCounts = Record<string, number>

export interface UsageReport {
  days: 7 | 30 | 90
  from: string
  to: string
  totals: { requests: number; byTransport: UsageCounts }
  byDay: Array<{ day: string; requests: number; byTransport: UsageCounts }>
  byLibrary: Array<{ libraryId: string; requests: number; byTransport: UsageCounts; byClient: UsageCounts }>
}

/** What POST /api/import-libraries answers (202). */
export interface ImportAnswer {
  message: string
  queued: string[]
  skipped: Array<{ project: string; reason: string }>
}

/** GET /api/libraries/exportable (cloud): public, finalized libraries for the export picker. */
export interface ExportableList {
  libraries: Array<{ id: string; title: string; totalSnippets: number; lastUpdateDate: string }>
  total: number
  max: number
}

export interface BackupArchive {
  name: string
  size: number
  createdAt: string
  destination: string
}

export interface BackupResult {
  ok: boolean
  trigger: string
  startedAt: string
  finishedAt: string
  durationMs: number
  destination: string
  name?: string
  size?: number
  partialLibraries?: string[]
  /** A written archive that is not safe where it is (inside the data directory). */
  warning?: string
  code?: string
  error?: string
  interrupted?: boolean
}

export interface LastRestore {
  state: 'applied' | 'failed'
  archive: string
  at: string
  code?: string
  reason?: string
  movedTo?: string
}

export interface BackupStatus {
  running: boolean
  startedAt: string | null
  trigger: string | null
  last: BackupResult | null
  lastRestore: LastRestore | null
}

export interface ArchiveSummary {
  name: string
  createdAt: string
  appVersion: string
  schemaVersion: string
  libraries: Array<{ id: string; versions: Array<{ tag: string; state: string; snippets: number }>; partial: boolean }>
  members: number
  bytes: number
}

export interface S3DestinationView {
  type: 's3'
  bucket: string
  region: string
  accessKeyId: string
  endpoint: string
  forcePathStyle: boolean
  prefix: string
  secretSet: boolean
}

export interface BackupConfigView {
  destination: { type: 'dir'; path: string } | S3DestinationView
  schedule: { expression: string; timeZone: string } | null
  retention: { keep: number | 'all' }
}

export interface ScheduleNext {
  presets: Record<string, string>
  next: string[]
}

type Findings<T> = { count: number; items: T[] }

/** GET /api/libraries/:owner/:name/extraction: what a version's last ingest made of its documents (src/extraction/report.ts). */
export interface ExtractionReport {
  pages: number
  snippets: number
  pagesSkipped: Findings<{ page: string; reason: string }>
  pagesWithoutSnippets: Findings<{ page: string }>
  includes: {
    found: number
    resolved: number
    unresolved: Findings<{ page: string; line: number; reference: string; resolved?: string; problem: string; tried?: string[] }>
  }
  titlesWithMarkup: Findings<{ page: string; title: string; anchor: string }>
  undefinedAnchors: Findings<{ page: string; anchor: string; title: string }>
  codeWithoutLanguage: Findings<{ page: string; count: number }>
  notRendered: Findings<{ page: string; line: number; directive: string }>
  duplicatesDropped: number
}

export interface ExtractionView {
  libraryId: string
  createdAt: string | null
  jobId: number | null
  state: 'initial' | 'queued' | 'processing' | 'finalized' | 'error'
  errorCode: string | null
  report: ExtractionReport | null
}

/** GET /api/audit: one event of the audit log (src/store/audit.ts). */
export interface AuditEvent {
  id: number
  at: string
  action: string
  outcome: 'success' | 'failure' | 'blocked'
  actor: { kind: 'user' | 'api-key' | 'cli' | 'anonymous' | 'system' | 'webhook'; name: string | null }
  address: string | null
  target: string | null
  details: Record<string, unknown>
}

export interface AuditPage {
  events: AuditEvent[]
  /** The `cursor` of the next, older page; null on the last. */
  nextCursor: number | null
}

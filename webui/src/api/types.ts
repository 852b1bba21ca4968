// The JSON shapes of the server's API (LightRAG's, plus lightrag-rs extensions marked "ours").

export type DocStatus = 'pending' | 'parsing' | 'analyzing' | 'processing' | 'preprocessed' | 'processed' | 'failed';

export const DOC_STATUSES: DocStatus[] = [
  'pending',
  'parsing',
  'analyzing',
  'processing',
  'preprocessed',
  'processed',
  'failed',
];

export interface DocStatusResponse {
  id: string;
  content_summary: string;
  content_length: number;
  status: DocStatus;
  created_at: string;
  updated_at: string;
  track_id?: string | null;
  chunks_count?: number | null;
  error_msg?: string | null;
  metadata?: Record<string, unknown> | null;
  file_path: string;
}

export type SortField = 'created_at' | 'updated_at' | 'id' | 'file_path';
export type SortDirection = 'asc' | 'desc';

export interface PaginatedRequest {
  status_filter?: DocStatus | null;
  status_filters?: DocStatus[] | null;
  page: number;
  page_size: number;
  sort_field: SortField;
  sort_direction: SortDirection;
}

export interface Pagination {
  page: number;
  page_size: number;
  total_count: number;
  total_pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export type StatusCounts = Partial<Record<DocStatus | 'all', number>>;

export interface PaginatedDocs {
  documents: DocStatusResponse[];
  pagination: Pagination;
  status_counts: StatusCounts;
}

export interface InsertResponse {
  status: 'success' | 'partial_success' | 'failure' | string;
  message: string;
  track_id: string;
}

export interface ScanResponse {
  status: 'scanning_started' | 'scanning_skipped_pipeline_busy' | string;
  message: string;
  track_id?: string;
}

export interface StatusMessage {
  status: string;
  message: string;
}

export interface DeleteDocResponse {
  status: 'deletion_started' | 'busy' | 'not_allowed' | string;
  message: string;
  doc_id: string;
}

export interface TrackStatus {
  track_id: string;
  documents: DocStatusResponse[];
  total_count: number;
  status_summary: Partial<Record<DocStatus, number>>;
}

export interface PipelineStatus {
  autoscanned?: boolean;
  busy: boolean;
  job_name: string;
  job_start?: string | null;
  docs: number;
  batchs: number;
  cur_batch: number;
  request_pending: boolean;
  latest_message: string;
  history_messages?: string[];
  update_status?: Record<string, unknown>;
  scanning?: boolean;
  destructive_busy?: boolean;
  cancellation_requested?: boolean;
  pending_enqueues?: number;
  [key: string]: unknown;
}

// ---- query ----

export type QueryMode = 'auto' | 'local' | 'global' | 'hybrid' | 'naive' | 'mix' | 'ppr' | 'bypass';
export const QUERY_MODES: QueryMode[] = ['auto', 'mix', 'local', 'global', 'hybrid', 'naive', 'ppr', 'bypass'];

export interface ChatTurn {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

export interface QueryRequest {
  query: string;
  mode?: QueryMode;
  only_need_context?: boolean;
  only_need_prompt?: boolean;
  response_type?: string;
  top_k?: number;
  chunk_top_k?: number;
  max_entity_tokens?: number;
  max_relation_tokens?: number;
  max_total_tokens?: number;
  hl_keywords?: string[];
  ll_keywords?: string[];
  conversation_history?: ChatTurn[];
  user_prompt?: string;
  enable_rerank?: boolean;
  include_references?: boolean;
  include_chunk_content?: boolean;
  stream?: boolean;
  /** ours: the retrieval trace (scores, usage, timings). */
  include_trace?: boolean;
}

export interface Reference {
  reference_id: string;
  file_path: string;
  content?: string[] | null;
}

export interface QueryResponse {
  response: string;
  references?: Reference[] | null;
  trace?: QueryTrace;
}

export interface EntityData {
  entity_name: string;
  entity_type: string;
  description: string;
  source_id: string;
  file_path: string;
  created_at: number;
}

export interface RelationData {
  src_id: string;
  tgt_id: string;
  description: string;
  keywords: string;
  weight: number;
  source_id: string;
  file_path: string;
  created_at: number;
}

export interface ChunkData {
  reference_id: string;
  content: string;
  file_path: string;
  chunk_id: string;
}

export interface QueryDataResponse {
  status: 'success' | 'failure';
  message: string;
  data: {
    entities?: EntityData[];
    relationships?: RelationData[];
    chunks?: ChunkData[];
    references?: Reference[];
  };
  metadata: {
    query_mode?: string;
    keywords?: { high_level: string[]; low_level: string[] };
    processing_info?: Record<string, number>;
    [key: string]: unknown;
  };
  trace?: QueryTrace;
}

/** ours: how each record came in and what the query cost. */
export interface TraceRecord {
  score: number | null;
  origin: string;
  rank: number;
}

export interface UsageCounters {
  calls: number;
  cache_hits: number;
  tokens_in: number;
  tokens_out: number;
}

export interface QueryTrace {
  entities: (TraceRecord & { entity_name: string })[];
  relationships: (TraceRecord & { src_id: string; tgt_id: string })[];
  chunks: (TraceRecord & { chunk_id: string })[];
  usage: Record<string, UsageCounters>;
  timings_ms: Record<string, number | null>;
  /** The full records (same shapes as /query/data's `data`), when the server includes them. */
  data?: QueryDataResponse['data'];
  /** The keywords the retrieval used, when the server includes them. */
  keywords?: { high_level: string[]; low_level: string[] };
}

/** One line of /query/stream. */
export interface StreamLine {
  references?: Reference[];
  response?: string;
  error?: string;
  trace?: QueryTrace;
}

// ---- graph ----

export interface GraphNode {
  id: string;
  labels: string[];
  properties: Record<string, unknown> & {
    entity_id?: string;
    entity_type?: string;
    description?: string;
    source_id?: string;
    file_path?: string;
  };
}

export interface GraphEdge {
  id: string;
  type?: string;
  source: string;
  target: string;
  properties: Record<string, unknown> & {
    weight?: number;
    description?: string;
    keywords?: string;
    source_id?: string;
    file_path?: string;
  };
}

export interface KnowledgeGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  is_truncated: boolean;
}

export interface GraphEditResponse {
  status: string;
  message: string;
  data?: Record<string, unknown>;
  operation_summary?: {
    merged?: boolean;
    merge_status?: string;
    merge_error?: string | null;
    operation_status?: string;
    target_entity?: string | null;
    final_entity?: string | null;
    renamed?: boolean;
  };
}

export interface DeletionResult {
  status: string;
  doc_id: string;
  message: string;
  status_code: number;
  file_path?: string | null;
}

/** ours: the chunks and documents an entity or relation comes from. */
export interface SourceChunk {
  chunk_id: string;
  doc_id: string;
  file_path: string;
  chunk_order_index: number;
  tokens: number;
  content: string;
  extracted: Record<string, unknown>[];
}

export interface SourceDocument {
  doc_id: string;
  file_path: string;
  /** null when the document's status record is gone. */
  status: string | null;
  chunk_ids: string[];
}

export interface EntitySources {
  entity_name: string;
  entity_type: string;
  description: string;
  total_chunks: number;
  documents: SourceDocument[];
  chunks: SourceChunk[];
}

export interface RelationSources {
  source_entity: string;
  target_entity: string;
  keywords: string;
  description: string;
  total_chunks: number;
  documents: SourceDocument[];
  chunks: SourceChunk[];
}

// ---- system ----

export interface AuthStatus {
  auth_configured: boolean;
  access_token?: string;
  token_type?: string;
  auth_mode?: 'enabled' | 'disabled' | string;
  message?: string;
  core_version?: string;
  api_version?: string;
  webui_title?: string;
  webui_description?: string;
}

export interface LoginResponse {
  access_token: string;
  token_type: string;
  auth_mode: string;
  message?: string;
  core_version?: string;
  api_version?: string;
  webui_title?: string;
  webui_description?: string;
}

export interface Health {
  status: string;
  webui_available?: boolean;
  working_directory?: string;
  input_directory?: string;
  configuration?: Record<string, unknown>;
  auth_mode?: string;
  pipeline_busy?: boolean;
  core_version?: string;
  api_version?: string;
  webui_title?: string;
  webui_description?: string;
  [key: string]: unknown;
}

/** ours: GET /workspaces. */
export interface WorkspaceList {
  default: string;
  current: string;
  workspaces: string[];
}

// ---- access control (the owners' /admin routes, issue 30) ----

export type MemberRole = 'reader' | 'editor' | 'admin';

/** `GET /admin/grants` entries. */
export interface GrantRecord {
  principal: string;
  workspace: string;
  role: MemberRole;
}

/** `GET /admin/keys` and `GET /admin/accounts` entries (never a key or a hash). */
export interface PrincipalRecord {
  kind: 'key' | 'account';
  name: string;
  /** Unix seconds. */
  created: number;
  /** Unix seconds; null: never. */
  expires: number | null;
  owner: boolean;
  revoked: boolean;
  /** An account whose password is kept here (false: an AUTH_ACCOUNTS login). */
  managed: boolean;
  /** [workspace, role] pairs. */
  grants: [string, MemberRole][];
}

/** `POST /admin/keys`: the key, shown once. */
export interface CreatedKey {
  name: string;
  key: string;
  expires: number | null;
}

/** `GET /admin/audit` entries, newest first. */
export interface AuditRecord {
  /** Unix milliseconds. */
  time: number;
  principal: string;
  workspace: string;
  action: string;
  /** The HTTP status code. */
  outcome: number;
  client: string;
}

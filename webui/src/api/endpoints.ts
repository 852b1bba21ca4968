// One typed function per API route the UI uses.
import type { ApiClient } from './client';
import type {
  AuditRecord,
  AuthStatus,
  CreatedKey,
  DeleteDocResponse,
  DeletionResult,
  DocStatusResponse,
  EntitySources,
  GrantRecord,
  GraphEditResponse,
  Health,
  InsertResponse,
  KnowledgeGraph,
  LoginResponse,
  PaginatedDocs,
  PaginatedRequest,
  PipelineStatus,
  PrincipalRecord,
  MemberRole,
  QueryDataResponse,
  QueryRequest,
  QueryResponse,
  RelationSources,
  ScanResponse,
  StatusCounts,
  StatusMessage,
  TrackStatus,
  WorkspaceList,
} from './types';

export function endpoints(api: ApiClient) {
  return {
    // system
    authStatus: () => api.json<AuthStatus>('GET', '/auth-status', { anonymous: true }),
    login: (username: string, password: string) =>
      api.json<LoginResponse>('POST', '/login', { form: { username, password }, anonymous: true }),
    health: (signal?: AbortSignal) => api.get<Health>('/health', undefined, signal),
    workspaces: () => api.get<WorkspaceList>('/workspaces'),

    // access control (owners only: others get 403)
    grants: (workspace: string) => api.get<{ grants: GrantRecord[] }>('/admin/grants', { workspace }),
    setGrant: (name: string, workspace: string, role: MemberRole) =>
      api.post<{ status: string }>('/admin/grants', { name, workspace, role }),
    removeGrant: (name: string, workspace: string) =>
      api.json<{ status: string }>('DELETE', '/admin/grants', { query: { name, workspace } }),
    keys: () => api.get<{ keys: PrincipalRecord[] }>('/admin/keys'),
    accounts: () => api.get<{ accounts: PrincipalRecord[] }>('/admin/accounts'),
    createKey: (name: string, workspace: string, role: MemberRole, expiresDays?: number) =>
      api.post<CreatedKey>('/admin/keys', {
        name,
        workspace,
        role,
        ...(expiresDays === undefined ? {} : { expires_days: expiresDays }),
      }),
    revokeKey: (name: string) => api.json<{ status: string }>('DELETE', '/admin/keys', { query: { name } }),
    audit: (workspace: string, limit = 50) => api.get<{ entries: AuditRecord[] }>('/admin/audit', { workspace, limit }),

    // documents
    paginated: (req: PaginatedRequest, signal?: AbortSignal) =>
      api.post<PaginatedDocs>('/documents/paginated', req, signal),
    statusCounts: () => api.get<{ status_counts: StatusCounts }>('/documents/status_counts'),
    upload: (file: File, onProgress?: (loaded: number, total: number) => void, signal?: AbortSignal) =>
      api.upload<InsertResponse>('/documents/upload', file, { onProgress, signal }),
    insertText: (text: string, fileSource: string) =>
      api.post<InsertResponse>('/documents/text', { text, file_source: fileSource }),
    scan: () => api.post<ScanResponse>('/documents/scan'),
    reprocessFailed: () => api.post<StatusMessage & { track_id: string }>('/documents/reprocess_failed'),
    deleteDocuments: (docIds: string[], deleteFile: boolean, deleteLlmCache: boolean) =>
      api.delete<DeleteDocResponse>('/documents/delete_document', {
        doc_ids: docIds,
        delete_file: deleteFile,
        delete_llm_cache: deleteLlmCache,
      }),
    clearDocuments: () => api.delete<StatusMessage>('/documents'),
    clearCache: () => api.post<StatusMessage>('/documents/clear_cache', {}),
    pipelineStatus: (signal?: AbortSignal) =>
      api.get<PipelineStatus>('/documents/pipeline_status', undefined, signal),
    cancelPipeline: () => api.post<StatusMessage>('/documents/cancel_pipeline'),
    trackStatus: (trackId: string) =>
      api.get<TrackStatus>(`/documents/track_status/${encodeURIComponent(trackId)}`),
    allDocuments: () => api.get<{ statuses: Record<string, DocStatusResponse[]> }>('/documents'),

    // query
    query: (req: QueryRequest, signal?: AbortSignal) => api.post<QueryResponse>('/query', req, signal),
    queryData: (req: QueryRequest, signal?: AbortSignal) => api.post<QueryDataResponse>('/query/data', req, signal),
    queryStream: (req: QueryRequest, signal?: AbortSignal) =>
      api.send('POST', '/query/stream', { json: req, signal }),

    // graph
    graph: (label: string, maxDepth: number, maxNodes: number, signal?: AbortSignal) =>
      api.get<KnowledgeGraph>('/graphs', { label, max_depth: maxDepth, max_nodes: maxNodes }, signal),
    labelList: () => api.get<string[]>('/graph/label/list'),
    popularLabels: (limit = 300, signal?: AbortSignal) => api.get<string[]>('/graph/label/popular', { limit }, signal),
    searchLabels: (q: string, limit = 50, signal?: AbortSignal) =>
      api.get<string[]>('/graph/label/search', { q, limit }, signal),
    entityExists: (name: string) => api.get<{ exists: boolean }>('/graph/entity/exists', { name }),
    editEntity: (entityName: string, updatedData: Record<string, unknown>, allowRename = false, allowMerge = false) =>
      api.post<GraphEditResponse>('/graph/entity/edit', {
        entity_name: entityName,
        updated_data: updatedData,
        allow_rename: allowRename,
        allow_merge: allowMerge,
      }),
    editRelation: (sourceId: string, targetId: string, updatedData: Record<string, unknown>) =>
      api.post<GraphEditResponse>('/graph/relation/edit', {
        source_id: sourceId,
        target_id: targetId,
        updated_data: updatedData,
      }),
    createEntity: (entityName: string, entityData: Record<string, unknown>) =>
      api.post<GraphEditResponse>('/graph/entity/create', { entity_name: entityName, entity_data: entityData }),
    createRelation: (source: string, target: string, relationData: Record<string, unknown>) =>
      api.post<GraphEditResponse>('/graph/relation/create', {
        source_entity: source,
        target_entity: target,
        relation_data: relationData,
      }),
    mergeEntities: (entitiesToChange: string[], into: string) =>
      api.post<GraphEditResponse>('/graph/entities/merge', {
        entities_to_change: entitiesToChange,
        entity_to_change_into: into,
      }),
    deleteEntity: (entityName: string) =>
      api.delete<DeletionResult>('/graph/entity/delete', { entity_name: entityName }),
    deleteRelation: (source: string, target: string) =>
      api.delete<DeletionResult>('/graph/relation/delete', { source_entity: source, target_entity: target }),
    entitySources: (name: string, limit = 100) =>
      api.get<EntitySources>('/graph/entity/sources', { name, limit }),
    relationSources: (source: string, target: string, limit = 100) =>
      api.get<RelationSources>('/graph/relation/sources', {
        source_entity: source,
        target_entity: target,
        limit,
      }),
  };
}

export type Endpoints = ReturnType<typeof endpoints>;

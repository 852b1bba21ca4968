import { describe, expect, it, vi } from 'vitest';
import { ApiClient, type AuthBridge, type Credentials } from './client';
import { ApiError, NetworkError } from './errors';

interface Call {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: unknown;
}

function fakeServer(handler: (call: Call, n: number) => Response) {
  const calls: Call[] = [];
  const fetchImpl = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const call: Call = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: (init?.headers ?? {}) as Record<string, string>,
      body: init?.body,
    };
    calls.push(call);
    return handler(call, calls.length);
  });
  return { calls, fetchImpl: fetchImpl as unknown as typeof fetch };
}

function bridge(creds: Partial<Credentials> = {}, guest = false) {
  const state: Credentials = { token: null, apiKey: null, workspace: '', ...creds };
  const failures: ApiError[] = [];
  const renewed: string[] = [];
  let refreshes = 0;
  const auth: AuthBridge = {
    credentials: () => state,
    onNewToken: (t) => {
      renewed.push(t);
      state.token = t;
    },
    refreshGuestToken: async () => {
      if (!guest) return false;
      refreshes += 1;
      state.token = `guest-${refreshes}`;
      return true;
    },
    onAuthFailure: (e) => failures.push(e),
  };
  return { auth, state, failures, renewed, refreshes: () => refreshes };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe('ApiClient', () => {
  it('sends the prefix, credentials and workspace header', async () => {
    const { calls, fetchImpl } = fakeServer(() => json({ ok: true }));
    const b = bridge({ token: 'tok', apiKey: 'key', workspace: 'team_a' });
    const api = new ApiClient({ baseUrl: '/lightrag/', auth: b.auth, fetch: fetchImpl });
    await api.get('/graphs', { label: 'A B', max_depth: 2, skip: undefined });
    expect(calls[0]?.url).toBe('/lightrag/graphs?label=A+B&max_depth=2');
    expect(calls[0]?.headers).toMatchObject({
      Authorization: 'Bearer tok',
      'X-API-Key': 'key',
      'LIGHTRAG-WORKSPACE': 'team_a',
    });
  });

  it('sends no workspace header for the default workspace, and no credentials when anonymous', async () => {
    const { calls, fetchImpl } = fakeServer(() => json({}));
    const api = new ApiClient({ baseUrl: '', auth: bridge({ token: 't' }).auth, fetch: fetchImpl });
    await api.json('GET', '/auth-status', { anonymous: true });
    expect(calls[0]?.headers).toEqual({});
  });

  it('posts JSON and forms', async () => {
    const { calls, fetchImpl } = fakeServer(() => json({}));
    const api = new ApiClient({ baseUrl: '', auth: bridge().auth, fetch: fetchImpl });
    await api.post('/query', { query: 'q' });
    await api.json('POST', '/login', { form: { username: 'a b', password: 'p&q' } });
    expect(calls[0]?.headers['Content-Type']).toBe('application/json');
    expect(calls[0]?.body).toBe('{"query":"q"}');
    expect(calls[1]?.headers['Content-Type']).toBe('application/x-www-form-urlencoded');
    expect(calls[1]?.body).toBe('username=a+b&password=p%26q');
  });

  it('takes a renewed token from X-New-Token', async () => {
    const { fetchImpl } = fakeServer(() => json({}, 200, { 'X-New-Token': 'fresh' }));
    const b = bridge({ token: 'old' });
    const api = new ApiClient({ baseUrl: '', auth: b.auth, fetch: fetchImpl });
    await api.get('/documents/status_counts');
    expect(b.renewed).toEqual(['fresh']);
    expect(b.state.token).toBe('fresh');
  });

  it('in guest mode, fetches a new guest token once on 401 and retries with it', async () => {
    const { calls, fetchImpl } = fakeServer((call) =>
      call.headers.Authorization === 'Bearer guest-1' ? json({ n: 1 }) : json({ detail: 'Token expired' }, 401),
    );
    const b = bridge({ token: 'stale' }, true);
    const api = new ApiClient({ baseUrl: '', auth: b.auth, fetch: fetchImpl });
    await expect(api.get('/health')).resolves.toEqual({ n: 1 });
    expect(calls).toHaveLength(2);
    expect(b.failures).toHaveLength(0);
  });

  it('reports a 401 it cannot fix to the session, once, and throws the server message', async () => {
    const { calls, fetchImpl } = fakeServer(() => json({ detail: 'Token expired' }, 401));
    const b = bridge({ token: 'stale' }, false);
    const api = new ApiClient({ baseUrl: '', auth: b.auth, fetch: fetchImpl });
    await expect(api.get('/documents')).rejects.toMatchObject({ status: 401, message: 'Token expired' });
    expect(calls).toHaveLength(1);
    expect(b.failures.map((f) => f.status)).toEqual([401]);
  });

  it('reports a 403 asking for an API key, but not other errors', async () => {
    let status = 403;
    const { fetchImpl } = fakeServer(() =>
      status === 403 ? json({ detail: 'API Key required' }, 403) : json({ detail: 'busy' }, 409),
    );
    const b = bridge();
    const api = new ApiClient({ baseUrl: '', auth: b.auth, fetch: fetchImpl });
    await expect(api.get('/documents')).rejects.toBeInstanceOf(ApiError);
    status = 409;
    await expect(api.post('/graph/entity/edit', {})).rejects.toMatchObject({ status: 409, message: 'busy' });
    expect(b.failures.map((f) => f.status)).toEqual([403]);
  });

  it('turns connection failures into NetworkError and keeps aborts as they are', async () => {
    const offline = (async () => {
      throw new TypeError('Failed to fetch');
    }) as unknown as typeof fetch;
    const api = new ApiClient({ baseUrl: '', auth: bridge().auth, fetch: offline });
    await expect(api.get('/health')).rejects.toBeInstanceOf(NetworkError);
    const aborting = (async () => {
      throw new DOMException('stopped', 'AbortError');
    }) as unknown as typeof fetch;
    const api2 = new ApiClient({ baseUrl: '', auth: bridge().auth, fetch: aborting });
    await expect(api2.get('/health')).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('uses the server text for non-JSON error bodies', async () => {
    const { fetchImpl } = fakeServer(() => new Response('upstream down', { status: 502, statusText: 'Bad Gateway' }));
    const api = new ApiClient({ baseUrl: '', auth: bridge().auth, fetch: fetchImpl });
    await expect(api.get('/health')).rejects.toMatchObject({ status: 502, message: 'upstream down' });
  });

  describe('upload', () => {
    /** A scripted XMLHttpRequest: the test answers each request it sends. */
    class FakeXhr {
      static sent: FakeXhr[] = [];
      method = '';
      url = '';
      headers: Record<string, string> = {};
      body: FormData | null = null;
      status = 0;
      statusText = '';
      responseText = '';
      responseHeaders: Record<string, string> = {};
      aborted = false;
      upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null } = { onprogress: null };
      onload: (() => void) | null = null;
      onerror: (() => void) | null = null;
      onabort: (() => void) | null = null;
      open(method: string, url: string) {
        this.method = method;
        this.url = url;
      }
      setRequestHeader(k: string, v: string) {
        this.headers[k] = v;
      }
      getResponseHeader(k: string) {
        return this.responseHeaders[k] ?? null;
      }
      send(body: FormData) {
        this.body = body;
        FakeXhr.sent.push(this);
      }
      abort() {
        this.aborted = true;
        this.onabort?.();
      }
      respond(status: number, body: unknown, headers: Record<string, string> = {}) {
        this.status = status;
        this.statusText = status === 200 ? 'OK' : 'Error';
        this.responseText = typeof body === 'string' ? body : JSON.stringify(body);
        this.responseHeaders = headers;
        this.onload?.();
      }
    }
    const last = () => FakeXhr.sent[FakeXhr.sent.length - 1]!;
    const client = (b = bridge({ token: 'tok', workspace: 'w' })) =>
      new ApiClient({ baseUrl: '/kb', auth: b.auth, createXhr: () => new FakeXhr() as unknown as XMLHttpRequest });
    const file = () => new File(['hello'], 'notes.md', { type: 'text/markdown' });
    const flush = () => new Promise((r) => setTimeout(r, 0));

    it('posts the file as multipart field "file" with the credentials, reports progress, takes a renewed token', async () => {
      FakeXhr.sent = [];
      const b = bridge({ token: 'tok', workspace: 'w' });
      const progress: [number, number][] = [];
      const pending = client(b).upload('/documents/upload', file(), { onProgress: (l, t) => progress.push([l, t]) });
      const xhr = last();
      expect([xhr.method, xhr.url]).toEqual(['POST', '/kb/documents/upload']);
      expect(xhr.headers).toMatchObject({ Authorization: 'Bearer tok', 'LIGHTRAG-WORKSPACE': 'w' });
      expect((xhr.body?.get('file') as File).name).toBe('notes.md');
      xhr.upload.onprogress?.({ lengthComputable: true, loaded: 2, total: 5 });
      xhr.upload.onprogress?.({ lengthComputable: false, loaded: 0, total: 0 });
      xhr.respond(200, { status: 'success', track_id: 't1' }, { 'X-New-Token': 'renewed' });
      expect(await pending).toEqual({ status: 'success', track_id: 't1' });
      expect(progress).toEqual([[2, 5]]);
      expect(b.renewed).toEqual(['renewed']);
    });

    it('throws ApiError with the server message, and reports a 401 it cannot fix', async () => {
      FakeXhr.sent = [];
      const b = bridge({ token: 'tok' });
      const conflict = client(b).upload('/documents/upload', file());
      last().respond(409, { detail: 'File notes.md already exists' });
      await expect(conflict).rejects.toMatchObject({ status: 409, message: 'File notes.md already exists' });
      expect(b.failures).toEqual([]);
      const refused = client(b).upload('/documents/upload', file());
      last().respond(401, { detail: 'Token expired' });
      await expect(refused).rejects.toMatchObject({ status: 401 });
      expect(b.failures.map((f) => f.status)).toEqual([401]);
    });

    it('in guest mode retries once with a new guest token', async () => {
      FakeXhr.sent = [];
      const b = bridge({ token: 'old' }, true);
      const pending = client(b).upload('/documents/upload', file());
      last().respond(401, { detail: 'expired' });
      await flush();
      expect(FakeXhr.sent).toHaveLength(2);
      expect(last().headers.Authorization).toBe('Bearer guest-1');
      last().respond(200, { status: 'success' });
      expect(await pending).toEqual({ status: 'success' });
    });

    it('cancels with AbortError, also when the signal was aborted before; a lost connection is a NetworkError', async () => {
      FakeXhr.sent = [];
      const abort = new AbortController();
      const pending = client().upload('/documents/upload', file(), { signal: abort.signal });
      abort.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(last().aborted).toBe(true);
      const before = FakeXhr.sent.length;
      await expect(client().upload('/documents/upload', file(), { signal: abort.signal })).rejects.toMatchObject({ name: 'AbortError' });
      expect(FakeXhr.sent).toHaveLength(before);
      const lost = client().upload('/documents/upload', file());
      last().onerror?.();
      await expect(lost).rejects.toBeInstanceOf(NetworkError);
    });

    it('lets go of the signal once the upload is over', async () => {
      FakeXhr.sent = [];
      const abort = new AbortController();
      const remove = vi.spyOn(abort.signal, 'removeEventListener');
      const pending = client().upload('/documents/upload', file(), { signal: abort.signal });
      last().respond(200, {});
      await pending;
      expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
      abort.abort();
      expect(last().aborted).toBe(false);
    });
  });
});

// The HTTP client every API call goes through. It adds the credentials and the workspace header,
// picks up renewed tokens (`X-New-Token`), gets a fresh guest token once on a 401 in guest mode,
// and turns error answers into ApiError with the server's message.
import { ApiError, NetworkError, messageOf } from './errors';
import { t } from '../i18n';

export const WORKSPACE_HEADER = 'LIGHTRAG-WORKSPACE';
export const API_KEY_HEADER = 'X-API-Key';
export const NEW_TOKEN_HEADER = 'X-New-Token';

export interface Credentials {
  token: string | null;
  apiKey: string | null;
  /** "" = the server's default workspace (no header sent). */
  workspace: string;
}

/** How the client talks to the session state (kept abstract so it can be tested alone). */
export interface AuthBridge {
  credentials(): Credentials;
  /** A renewed token arrived in `X-New-Token`. */
  onNewToken(token: string): void;
  /** In guest mode: fetch a new guest token; `true` when there is one to retry with. */
  refreshGuestToken(): Promise<boolean>;
  /** The server refused the credentials (401, or 403 asking for an API key). */
  onAuthFailure(error: ApiError): void;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export interface RequestOptions {
  query?: Query;
  json?: unknown;
  form?: Record<string, string>;
  body?: BodyInit;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Skip the credentials (for /auth-status and /login). */
  anonymous?: boolean;
}

export interface UploadOptions {
  signal?: AbortSignal;
  onProgress?: (loaded: number, total: number) => void;
}

export interface ClientOptions {
  baseUrl: string;
  auth: AuthBridge;
  fetch?: typeof fetch;
  /** For uploads with progress (tests may replace it). */
  createXhr?: () => XMLHttpRequest;
}

export class ApiClient {
  private readonly baseUrl: string;
  private readonly auth: AuthBridge;
  private readonly fetchImpl: typeof fetch;
  private readonly createXhr: () => XMLHttpRequest;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.auth = options.auth;
    this.fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.createXhr = options.createXhr ?? (() => new XMLHttpRequest());
  }

  /** The absolute path of an API route, with its query string. */
  url(path: string, query?: Query): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v !== undefined && v !== null) qs.append(k, String(v));
    }
    const q = qs.toString();
    return `${this.baseUrl}${path}${q ? `?${q}` : ''}`;
  }

  /** Headers with the credentials and the workspace. */
  authHeaders(anonymous = false): Record<string, string> {
    const c = this.auth.credentials();
    const h: Record<string, string> = {};
    if (c.workspace) h[WORKSPACE_HEADER] = c.workspace;
    if (!anonymous) {
      if (c.token) h.Authorization = `Bearer ${c.token}`;
      if (c.apiKey) h[API_KEY_HEADER] = c.apiKey;
    }
    return h;
  }

  /** Sends a request; resolves with the response when its status is 2xx, else throws ApiError. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    let response = await this.once(method, path, options);
    if (response.status === 401 && !options.anonymous && (await this.auth.refreshGuestToken())) {
      response = await this.once(method, path, options);
    }
    if (!response.ok) {
      const error = await errorOf(response);
      if (!options.anonymous && (error.isUnauthorized || error.needsApiKey)) this.auth.onAuthFailure(error);
      throw error;
    }
    return response;
  }

  async json<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new NetworkError(t('errors.notJson', { method, path }));
    }
  }

  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.json<T>('GET', path, { query, signal });
  }

  post<T>(path: string, json?: unknown, signal?: AbortSignal): Promise<T> {
    return this.json<T>('POST', path, { json: json ?? {}, signal });
  }

  delete<T>(path: string, json?: unknown): Promise<T> {
    return this.json<T>('DELETE', path, json === undefined ? {} : { json });
  }

  /** Uploads one file as multipart field `file`, reporting progress. */
  upload<T>(path: string, file: File, options: UploadOptions = {}): Promise<T> {
    const attempt = () => this.uploadOnce(path, file, options);
    return attempt().then(async (r) => {
      if (r.status === 401 && (await this.auth.refreshGuestToken())) return attempt();
      return r;
    }).then((r) => {
      let body: unknown = r.text;
      try {
        body = r.text === '' ? undefined : JSON.parse(r.text);
      } catch {
        // keep the text
      }
      if (r.status < 200 || r.status >= 300) {
        const error = new ApiError(r.status, messageOf(body, `${r.status} ${r.statusText}`), body);
        if (error.isUnauthorized || error.needsApiKey) this.auth.onAuthFailure(error);
        throw error;
      }
      return body as T;
    });
  }

  private uploadOnce(
    path: string,
    file: File,
    options: UploadOptions,
  ): Promise<{ status: number; statusText: string; text: string }> {
    return new Promise((resolve, reject) => {
      if (options.signal?.aborted) {
        reject(new DOMException('The upload was cancelled', 'AbortError'));
        return;
      }
      const xhr = this.createXhr();
      const onAbort = () => xhr.abort();
      const done = () => options.signal?.removeEventListener('abort', onAbort);
      xhr.open('POST', this.url(path));
      for (const [k, v] of Object.entries(this.authHeaders())) xhr.setRequestHeader(k, v);
      xhr.upload.onprogress = (e) => {
        if (e.lengthComputable) options.onProgress?.(e.loaded, e.total);
      };
      xhr.onload = () => {
        done();
        const renewed = xhr.getResponseHeader(NEW_TOKEN_HEADER);
        if (renewed) this.auth.onNewToken(renewed);
        resolve({ status: xhr.status, statusText: xhr.statusText, text: xhr.responseText });
      };
      xhr.onerror = () => {
        done();
        reject(new NetworkError(t('errors.uploadLost')));
      };
      xhr.onabort = () => {
        done();
        reject(new DOMException('The upload was cancelled', 'AbortError'));
      };
      options.signal?.addEventListener('abort', onAbort);
      const form = new FormData();
      form.append('file', file, file.name);
      xhr.send(form);
    });
  }

  private async once(method: string, path: string, options: RequestOptions): Promise<Response> {
    const headers: Record<string, string> = { ...this.authHeaders(options.anonymous), ...options.headers };
    let body: BodyInit | undefined = options.body;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    let response: Response;
    try {
      response = await this.fetchImpl(this.url(path, options.query), {
        method,
        headers,
        body,
        signal: options.signal,
      });
    } catch (e) {
      if (e instanceof Error && e.name === 'AbortError') throw e;
      throw new NetworkError(t('errors.unreachable', { method, path, error: e instanceof Error ? e.message : String(e) }));
    }
    const renewed = response.headers.get(NEW_TOKEN_HEADER);
    if (renewed) this.auth.onNewToken(renewed);
    return response;
  }
}

async function errorOf(response: Response): Promise<ApiError> {
  let body: unknown;
  const text = await response.text().catch(() => '');
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  const fallback = `${response.status} ${response.statusText || 'error'}`.trim();
  return new ApiError(response.status, messageOf(body, fallback), body);
}

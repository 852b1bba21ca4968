// The one session, API client and endpoint set of the running UI.
import { ApiClient } from '../api/client';
import { endpoints } from '../api/endpoints';
import { runtimeConfig } from '../config';
import { local, session as sessionStorage } from '../lib/storage';
import { createSession } from '../state/session';

export const session = createSession({
  storage: local,
  shortStorage: sessionStorage,
  fetchAuthStatus: () => server.authStatus(),
  postLogin: (u, p) => server.login(u, p),
});

export const api = new ApiClient({ baseUrl: runtimeConfig.apiPrefix, auth: session });

export const server = endpoints(api);

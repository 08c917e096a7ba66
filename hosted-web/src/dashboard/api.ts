// Dashboard transport: same origin, the HttpOnly `svc_dashboard` cookie travels by itself; the CSRF token
// from the sign-in answer (or GET /auth/session after a reload) rides on every GraphQL call and every unsafe
// /auth call (ADR 0012). The environment a call acts in is the X-Environment header.
import { createSignal } from 'solid-js';

export type Environment = 'sandbox' | 'production';
export interface SignedInUser {
  id: string;
  email: string;
  role: string;
  business_id: string;
}

export class DashError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    readonly detail?: string,
    /** the server's request id (GraphQL extensions.request_id), for support */
    readonly requestId?: string,
    /** the input the server names as wrong (GraphQL extensions.param, REST `param`), e.g. steps[2].terms */
    readonly param?: string,
  ) {
    super(code);
    this.name = 'DashError';
  }
}

let csrfToken = '';
const [user, setUser] = createSignal<SignedInUser | null>(null);
const initialEnv: Environment =
  sessionStorage.getItem('dashboard.env') === 'production' ? 'production' : 'sandbox';
const [environment, setEnvironmentSignal] = createSignal<Environment>(initialEnv);

export { environment, user };

export function setEnvironment(env: Environment): void {
  sessionStorage.setItem('dashboard.env', env);
  setEnvironmentSignal(env);
}

interface SignedInAnswer {
  user: SignedInUser;
  csrf_token: string;
}

function signedIn(a: SignedInAnswer): SignedInUser {
  csrfToken = a.csrf_token;
  setUser(a.user);
  return a.user;
}

async function send(path: string, init: RequestInit): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(path, { credentials: 'same-origin', cache: 'no-store', ...init });
  } catch {
    throw new DashError('network_error', 0);
  }
  const text = await res.text();
  let body: Record<string, unknown> | null = null;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
  } catch {
    body = null;
  }
  const errors = body?.errors as
    | { message?: string; extensions?: { code?: string; request_id?: string; param?: string } }[]
    | undefined;
  if (!res.ok || errors?.length) {
    const first = errors?.[0];
    const code = first?.extensions?.code ?? (body?.code as string | undefined) ?? `http_${res.status}`;
    throw new DashError(
      code,
      res.status,
      first?.message ?? (body?.title as string | undefined),
      first?.extensions?.request_id ?? (body?.request_id as string | undefined),
      first?.extensions?.param ?? (body?.param as string | undefined),
    );
  }
  return body;
}

/** POST to /auth/...; the CSRF header is added once signed in. */
export async function authPost(
  path: string,
  body: unknown = {},
  headers: Record<string, string> = {},
): Promise<unknown> {
  return send(path, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(csrfToken ? { 'x-csrf-token': csrfToken } : {}),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

export async function signInWith(path: string, body: unknown): Promise<SignedInUser> {
  return signedIn((await authPost(path, body)) as SignedInAnswer);
}

/** The signed-in user after a reload (null when signed out). */
export async function restoreSession(): Promise<SignedInUser | null> {
  if (user()) return user();
  try {
    return signedIn((await send('/auth/session', { method: 'GET' })) as SignedInAnswer);
  } catch (e) {
    if (e instanceof DashError && e.status === 401) return null;
    throw e;
  }
}

export async function signOut(): Promise<void> {
  await authPost('/auth/sign-out');
  csrfToken = '';
  setUser(null);
}

/**
 * One named operation of a `graphql/*.graphql` document, typed by the result and variables that
 * scripts/codegen.mjs generates from schema/schema.graphql (no hand-written mirror of server shapes).
 * The request carries the document's text (comments and spacing stripped at build, see vite.config.ts)
 * and the operation's name.
 */
export interface Operation<TData, TVars> {
  readonly document: string;
  readonly name: string;
  /** type-only: never set at runtime */
  readonly types?: { data: TData; variables: TVars };
}

export const operation = <TData, TVars>(document: string, name: string): Operation<TData, TVars> => ({
  document,
  name,
});

/** Variables may be left out exactly when the operation declares none. */
type VariablesArg<TVars> = TVars extends Record<string, never> ? [variables?: TVars] : [variables: TVars];

export async function gql<TData, TVars>(
  op: Operation<TData, TVars>,
  ...[variables]: VariablesArg<TVars>
): Promise<TData> {
  const request = { query: op.document, operationName: op.name, variables: variables ?? {} };
  const body = (await send('/graphql', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-csrf-token': csrfToken,
      'x-environment': environment(),
    },
    body: JSON.stringify(request),
  })) as { data: TData };
  return body.data;
}

/**
 * One operation with file variables as a GraphQL multipart request (`operations`, `map`, file parts). A
 * variable holds one file or a list of files (`variables.documents.0`, `.1`, …). The preflight header is what
 * the server's CSRF rule for multipart bodies asks for.
 */
export async function gqlUpload<TData, TVars>(
  op: Operation<TData, TVars>,
  files: Record<string, File | File[]>,
  variables: Partial<TVars> = {},
): Promise<TData> {
  const { document: query, name: operationName } = op;
  const parts: { path: string; file: File }[] = [];
  const nulls: Record<string, null | null[]> = {};
  for (const [name, value] of Object.entries(files)) {
    if (Array.isArray(value)) {
      nulls[name] = value.map(() => null);
      value.forEach((file, i) => {
        parts.push({ path: `variables.${name}.${i}`, file });
      });
    } else {
      nulls[name] = null;
      parts.push({ path: `variables.${name}`, file: value });
    }
  }
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, operationName, variables: { ...variables, ...nulls } }));
  form.append('map', JSON.stringify(Object.fromEntries(parts.map((p, i) => [String(i), [p.path]]))));
  parts.forEach((p, i) => {
    form.append(String(i), p.file);
  });
  const body = (await send('/graphql', {
    method: 'POST',
    headers: {
      'x-csrf-token': csrfToken,
      'x-environment': environment(),
      'apollo-require-preflight': 'true',
    },
    body: form,
  })) as { data: TData };
  return body.data;
}

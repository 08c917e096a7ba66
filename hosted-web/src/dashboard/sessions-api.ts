// The session screens' GraphQL calls: the named operations of graphql/sessions.graphql, typed by the
// generated types (scripts/codegen.mjs), no hand-written mirror of server shapes. Each call sends only its
// operation and the fragments it spreads, so the plain `gql(text, variables)` transport needs no
// operationName.

import type {
  AuditRecordQuery,
  ContinueSessionMutation,
  SessionDetailQuery,
  SessionListFilter,
  SessionStatus,
  SessionsQuery,
  SessionWorkflowsQuery,
  StopSessionMutation,
} from '../graphql/generated';
import { gql } from './api';
import DOCUMENT from './graphql/sessions.graphql?raw';

/** Top-level definitions of a document by name (operations and fragments), comments removed. */
function definitions(doc: string): Map<string, string> {
  const text = doc.replace(/#[^\n]*/g, '');
  const out = new Map<string, string>();
  let depth = 0;
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (depth === 0 && start < 0 && /\S/.test(c as string)) start = i;
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0 && start >= 0) {
      const def = text.slice(start, i + 1).trim();
      const name = /^(?:query|mutation|fragment)\s+(\w+)/.exec(def)?.[1];
      if (name) out.set(name, def);
      start = -1;
    }
  }
  return out;
}

const DEFS = definitions(DOCUMENT);

/** One operation with every fragment it needs (transitively). */
export function operationText(name: string, defs = DEFS): string {
  const seen = new Set<string>();
  const visit = (n: string) => {
    if (seen.has(n)) return;
    const def = defs.get(n);
    if (!def) throw new Error(`no GraphQL definition ${n}`);
    seen.add(n);
    for (const m of def.matchAll(/\.\.\.\s*(\w+)/g)) visit(m[1] as string);
  };
  visit(name);
  return [...seen].map((n) => defs.get(n)).join('\n');
}

const OPS = {
  Sessions: operationText('Sessions'),
  SessionDetail: operationText('SessionDetail'),
  AuditRecord: operationText('AuditRecord'),
  ContinueSession: operationText('ContinueSession'),
  StopSession: operationText('StopSession'),
  SessionWorkflows: operationText('SessionWorkflows'),
};

export type SessionSummary = SessionsQuery['sessions']['nodes'][number];
export type SessionDetail = SessionDetailQuery['session'];
export type StepResult = SessionDetail['results'][number];
export type TimelineEntry = SessionDetailQuery['sessionTimeline']['entries'][number];
export type AuditRecord = AuditRecordQuery['auditRecord'];

export const listSessions = (v: { first: number; after: string | null; filter: SessionListFilter }) =>
  gql<SessionsQuery>(OPS.Sessions, v);
export const getSessionDetail = (id: string) => gql<SessionDetailQuery>(OPS.SessionDetail, { id });
export const getAuditRecord = async (id: string) =>
  (await gql<AuditRecordQuery>(OPS.AuditRecord, { id })).auditRecord;
export const continueSession = async (id: string) =>
  (await gql<ContinueSessionMutation>(OPS.ContinueSession, { id })).continueSession;
export const stopSession = async (id: string) =>
  (await gql<StopSessionMutation>(OPS.StopSession, { id })).stopSession;

export const listWorkflows = async () => (await gql<SessionWorkflowsQuery>(OPS.SessionWorkflows)).workflows;

export const SESSION_STATUSES: readonly SessionStatus[] = [
  'created',
  'in_progress',
  'awaiting_decision',
  'completed',
  'stopped',
  'failed',
  'expired',
];

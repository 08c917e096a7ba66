// The session screens' GraphQL calls: the named operations of graphql/sessions.graphql, typed by the
// generated types (scripts/codegen.mjs), no hand-written mirror of server shapes.

import type {
  AuditRecordQuery,
  AuditRecordQueryVariables,
  ContinueSessionMutation,
  ContinueSessionMutationVariables,
  SessionDetailQuery,
  SessionDetailQueryVariables,
  SessionsQuery,
  SessionsQueryVariables,
  SessionWorkflowsQuery,
  SessionWorkflowsQueryVariables,
  StopSessionMutation,
  StopSessionMutationVariables,
} from '../graphql/generated';
import { SessionStatus } from '../graphql/generated';
import { gql, operation } from './api';
import DOCUMENT from './graphql/sessions.graphql?raw';
import { dt } from './i18n';

const SESSIONS = operation<SessionsQuery, SessionsQueryVariables>(DOCUMENT, 'Sessions');
const SESSION_DETAIL = operation<SessionDetailQuery, SessionDetailQueryVariables>(DOCUMENT, 'SessionDetail');
const AUDIT_RECORD = operation<AuditRecordQuery, AuditRecordQueryVariables>(DOCUMENT, 'AuditRecord');
const CONTINUE_SESSION = operation<ContinueSessionMutation, ContinueSessionMutationVariables>(
  DOCUMENT,
  'ContinueSession',
);
const STOP_SESSION = operation<StopSessionMutation, StopSessionMutationVariables>(DOCUMENT, 'StopSession');
const SESSION_WORKFLOWS = operation<SessionWorkflowsQuery, SessionWorkflowsQueryVariables>(
  DOCUMENT,
  'SessionWorkflows',
);

export type SessionSummary = SessionsQuery['sessions']['nodes'][number];
export type SessionDetail = SessionDetailQuery['session'];
export type StepResult = SessionDetail['results'][number];
export type TimelineEntry = SessionDetailQuery['sessionTimeline']['entries'][number];
export type SessionOriginal = SessionDetailQuery['sessionTimeline']['originals'][number];
export type AuditRecord = AuditRecordQuery['auditRecord'];

export const listSessions = (v: SessionsQueryVariables) => gql(SESSIONS, v);
export const getSessionDetail = (id: string) => gql(SESSION_DETAIL, { id });
export const getAuditRecord = async (id: string) => (await gql(AUDIT_RECORD, { id })).auditRecord;
export const continueSession = async (id: string) => (await gql(CONTINUE_SESSION, { id })).continueSession;
export const stopSession = async (id: string) => (await gql(STOP_SESSION, { id })).stopSession;

export const listWorkflows = async () => (await gql(SESSION_WORKFLOWS)).workflows;

/** The server's session statuses, as the schema lists them (the generated `SessionStatus` object). */
export const SESSION_STATUSES: readonly SessionStatus[] = Object.values(SessionStatus);

/**
 * Each status in words, for the badge in the list and on the detail (the enum stays in the filter's value and
 * the address). The dashboard is written in English only; the signer's page has its own translated words.
 */
export const STATUS_WORDS: Record<SessionStatus, string> = {
  created: 'Not started yet',
  in_progress: 'In progress',
  awaiting_decision: 'Waiting for your decision',
  completed: 'Completed',
  failed: 'Failed',
  expired: 'Expired',
  stopped: 'Stopped',
};
/** The status in the dashboard's language (messages/sessions.ts); STATUS_WORDS stays the English reference. */
export const statusWords = (s: string): string =>
  s in STATUS_WORDS ? dt(`status.${s as SessionStatus}`) : s;

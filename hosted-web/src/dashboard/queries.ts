// The session screens' documents (Sessions.tsx), still as strings with hand-written shapes until they move to
// graphql/sessions.graphql like the other screens' documents (graphql/*.graphql, types generated from
// schema/schema.graphql by scripts/codegen.mjs, sent with api.ts `operation`).

export interface SessionSummary {
  id: string;
  status: string;
  environment: string;
  workflowId: string;
  workflowRevision: number;
  createdAt: string;
  endedAt: string | null;
  failureReason: { code: string } | null;
}
const SUMMARY = 'id status environment workflowId workflowRevision createdAt endedAt failureReason { code }';
export const SESSIONS = `query Sessions($first: Int, $after: String, $filter: SessionListFilter) { sessions(first: $first, after: $after, filter: $filter) { nodes { ${SUMMARY} } pageInfo { endCursor hasNextPage } } }`;
export type SessionsData = {
  sessions: { nodes: SessionSummary[]; pageInfo: { endCursor: string | null; hasNextPage: boolean } };
};
export const SESSION_TIMELINE = `query SessionTimeline($id: ID!) { sessionTimeline(id: $id) { session { ${SUMMARY} } entries { at kind code detail } } }`;
export type SessionTimelineData = {
  sessionTimeline: {
    session: SessionSummary;
    entries: { at: string; kind: string; code: string | null; detail: unknown }[];
  };
};
export const SESSION_STATUSES = [
  'created',
  'in_progress',
  'awaiting_decision',
  'completed',
  'stopped',
  'failed',
  'expired',
];

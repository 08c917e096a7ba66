// The signer page's compiled read (ADR 0062) answers exactly what graphql-js answers for the same document
// over the published schema (schema/schema.graphql): same keys in the same order, leaves serialized by their
// types, nulls where the schema allows them, for every shape of the view the page sees. Documents it cannot
// answer that way (directives, arguments below the root, other root fields, invalid ones) are not compiled,
// so Apollo answers them.
import fs from 'node:fs';
import { buildSchema, execute, type GraphQLSchema, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  compilePageOperation,
  fieldsWithResolvers,
  PageOperations,
} from '../../server/src/modules/signer/signer.page-operation';

const SDL = fs.readFileSync(new URL('../../schema/schema.graphql', import.meta.url), 'utf8');
const PAGE = fs.readFileSync(new URL('../../hosted-web/src/graphql/signer.graphql', import.meta.url), 'utf8');

const step = (stage: number, extra: Record<string, unknown> = {}) => ({
  stage,
  primitive: 'identify',
  claims: ['given_name', 'family_name'],
  threshold: null,
  terms: null,
  termsSha256: null,
  documents: null,
  ...extra,
});

/** Views as signer.view.ts builds them: before start, running and bound, a sign step, failed. */
const VIEWS: Record<string, Record<string, unknown>> = {
  created: {
    id: 'sess_1',
    status: 'created',
    ended: false,
    environment: 'sandbox',
    business: { name: 'Acme', accentColor: null, logoUrl: null },
    workflowName: 'Identify',
    steps: [step(0)],
    currentStage: 0,
    completedStages: [],
    expires: '2026-01-01T00:00:00.000Z',
    deadline: '2026-01-01T00:00:00.000Z',
    deadlineKind: 'link',
    serverTime: '2025-12-31T00:00:00.000Z',
    binding: 'none',
    returnUrl: null,
    triesLeft: null,
    failure: null,
    walletRequests: [],
    sandboxPersonas: [],
  },
  running: {
    id: 'sess_2',
    status: 'in_progress',
    ended: false,
    environment: 'production',
    business: { name: 'Acme', accentColor: '#112233', logoUrl: '/branding/logo/abc' },
    workflowName: 'Sign',
    steps: [
      step(0, { primitive: 'age_verify', claims: null, threshold: 18 }),
      step(1, {
        primitive: 'sign',
        claims: null,
        documents: [
          {
            position: 0,
            label: 'Contract',
            sha256: 'ab'.repeat(32),
            size: 1234,
            contentType: 'application/pdf',
            shownToEnd: true,
          },
        ],
      }),
      step(2, { primitive: 'attestation', claims: null, terms: 'I agree', termsSha256: 'cd'.repeat(32) }),
    ],
    currentStage: 1,
    completedStages: [0],
    expires: '2026-01-01T00:00:00.000Z',
    deadline: '2025-12-31T00:10:00.000Z',
    deadlineKind: 'step',
    serverTime: '2025-12-31T00:00:00.000Z',
    binding: 'this_browser',
    returnUrl: null,
    triesLeft: 2,
    failure: null,
    walletRequests: [
      { transport: 'dc_api', protocol: 'openid4vp-v1-unsigned', path: '/t/sessions/sess_2/wallet-request' },
      {
        transport: 'cross_device',
        protocol: 'openid4vp',
        path: '/t/sessions/sess_2/wallet-request/cross_device',
      },
    ],
    sandboxPersonas: [{ id: 'adult', label: 'Adult', description: 'An adult' }],
  },
  failed: {
    id: 'sess_3',
    status: 'failed',
    ended: true,
    environment: 'sandbox',
    business: { name: 'Acme', accentColor: null, logoUrl: null },
    workflowName: 'Age',
    steps: [step(0, { primitive: 'age_verify', claims: null, threshold: 21 })],
    currentStage: 0,
    completedStages: [],
    expires: '2026-01-01T00:00:00.000Z',
    deadline: null,
    deadlineKind: null,
    serverTime: '2025-12-31T00:00:00.000Z',
    binding: 'other_browser',
    returnUrl: 'https://acme.example/back',
    triesLeft: null,
    failure: { code: 'age_requirement_not_met', stage: 0, window: null },
    walletRequests: [],
    sandboxPersonas: [],
  },
};

const schema: GraphQLSchema = buildSchema(SDL);
const graphqlJs = (text: string, view: unknown) =>
  execute({
    schema,
    document: parse(text),
    operationName: 'SignerSession',
    variableValues: { sessionId: 'sess_x' },
    rootValue: { signerSession: view },
  });

describe('the signer page’s compiled read', () => {
  it('compiles the page’s own SignerSession operation and takes the session id from its variable', () => {
    const op = compilePageOperation(schema, PAGE, 'SignerSession');
    expect(op).not.toBeNull();
    expect(op?.sessionIdOf({ sessionId: 'sess_abc' })).toBe('sess_abc');
    expect(op?.sessionIdOf({ sessionId: 12 })).toBeUndefined();
    expect(op?.sessionIdOf(undefined)).toBeUndefined();
  });

  for (const [name, view] of Object.entries(VIEWS)) {
    it(`answers the bytes graphql-js answers (${name})`, async () => {
      const op = compilePageOperation(schema, PAGE, 'SignerSession');
      const expected = JSON.stringify(await graphqlJs(PAGE, view));
      expect(JSON.stringify(op?.answer(view))).toBe(expected);
    });
  }

  it('answers aliases, __typename and inline fragments as graphql-js does', async () => {
    const text =
      'query SignerSession($sessionId: ID!) { page: signerSession(sessionId: $sessionId) { __typename ' +
      'st: status ... on SignerSession { id business { name } } steps { stage } ...F } } ' +
      'fragment F on SignerSession { failure { code } steps { primitive } }';
    const op = compilePageOperation(schema, text, 'SignerSession');
    expect(op).not.toBeNull();
    for (const view of Object.values(VIEWS))
      expect(JSON.stringify(op?.answer(view))).toBe(JSON.stringify(await graphqlJs(text, view)));
  });

  it('leaves to the general path what it cannot answer the way graphql-js does', () => {
    const withRoot = (root: string) => `query SignerSession($sessionId: ID!) { ${root} { id } }`;
    const declined = [
      withRoot('signerSession(sessionId: $sessionId) @include(if: true)'),
      'query SignerSession($sessionId: ID!, $x: Boolean!) { signerSession(sessionId: $sessionId) { id @skip(if: $x) } }',
      `query SignerSession($sessionId: ID!) { signerSession(sessionId: $sessionId) { id } a: signerSession(sessionId: $sessionId) { id } }`,
      withRoot('signerSession(sessionId: $sessionId) { nope } x: signerSession(sessionId: $sessionId)'),
      'query SignerSession { signerSession { id } }',
      'mutation SignerSession { closeReceiptAccess(sessionId: "s") { sessionId } }',
      'not graphql',
    ];
    for (const text of declined) expect(compilePageOperation(schema, text, 'SignerSession'), text).toBeNull();
    // an operation of the document other than the page's read
    expect(compilePageOperation(schema, PAGE, 'SignerReceipt')).toBeNull();
  });

  it('a view that does not fit the schema is refused, never answered', () => {
    const op = compilePageOperation(schema, PAGE, 'SignerSession');
    const { id: _id, ...withoutId } = VIEWS.created as Record<string, unknown>;
    expect(() => op?.answer(withoutId)).toThrow();
  });

  it('a field with a resolver of its own is not compiled (the resolver decides it)', () => {
    const withResolver = buildSchema(SDL);
    const status = withResolver.getType('SignerSession');
    const fields = (status as unknown as { getFields(): Record<string, { resolve?: unknown }> }).getFields();
    (fields.status as { resolve?: unknown }).resolve = () => 'completed';
    expect(fieldsWithResolvers(withResolver).size).toBeGreaterThan(0);
    expect(compilePageOperation(withResolver, PAGE, 'SignerSession')).toBeNull();
  });

  it('takes a request body to its compiled read, and leaves every other body to Apollo', () => {
    const ops = new PageOperations();
    const page = { query: PAGE, operationName: 'SignerSession', variables: { sessionId: 'sess_1' } };
    expect(ops.of(page)).toBeNull(); // no schema yet: nothing is answered before the server serves one
    ops.use(schema);
    const got = ops.of(page);
    expect(got?.op.sessionIdOf(got.variables)).toBe('sess_1');
    expect(ops.of(page)?.op).toBe(got?.op); // compiled once per text and operation
    for (const other of [
      { ...page, operationName: 'SignerReceipt' },
      { ...page, extensions: { persistedQuery: { version: 1 } } },
      { ...page, extra: true },
      { ...page, variables: [] },
      { query: 'query Me { __typename }' }, // names no signerSession: not parsed at all
      [page],
      'query',
      null,
    ])
      expect(ops.of(other), JSON.stringify(other).slice(0, 80)).toBeNull();
  });
});

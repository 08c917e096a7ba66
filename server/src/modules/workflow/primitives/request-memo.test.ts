// The identify and age_verify requests share one built DCQL query per claim list (or threshold) and binding
// claims (StepQueryMemo, ADR 0068): the request for the same step is the same frozen query under a fresh nonce,
// any change of claims, threshold or binding claims gives another query, and a refusal is never remembered.
import { describe, expect, it } from 'vitest';
import { buildIdentifyDcqlQuery, PID_VCT, StepQueryMemo } from '../../verification/dcql';
import { requestForStep } from './for-step';
import type { WorkflowStep } from './step';

const nonce = (n: number) => `${'n'.repeat(30)}${n}`;
const queryOf = (step: WorkflowStep, n: number, bindingClaims?: string[]) =>
  requestForStep(step, nonce(n), { bindingClaims }).request;

describe('a step request built from a shared query', () => {
  const identify = { primitive: 'identify', claims: ['given_name', 'family_name'] } as WorkflowStep;
  const age = { primitive: 'age_verify', threshold: 18 } as WorkflowStep;

  it('gives each request its own nonce over the same, frozen query', () => {
    for (const step of [identify, age]) {
      const a = queryOf(step, 1);
      const b = queryOf(step, 2);
      expect(a.nonce).not.toBe(b.nonce);
      expect(b.dcql_query).toBe(a.dcql_query);
      expect(Object.isFrozen((a.dcql_query as { credentials: object[] }).credentials[0])).toBe(true);
    }
  });

  it('builds another query for other claims, another threshold or binding claims', () => {
    const base = queryOf(identify, 1).dcql_query;
    const more = queryOf(
      { ...identify, claims: ['given_name', 'family_name', 'nationality'] } as WorkflowStep,
      1,
    );
    const bound = queryOf(identify, 1, ['birth_date']);
    expect(more.dcql_query).not.toBe(base);
    expect(JSON.stringify(more.dcql_query)).toContain('nationality');
    expect(JSON.stringify(base)).not.toContain('nationality');
    expect(JSON.stringify(bound.dcql_query)).toContain('birth_date');
    expect(JSON.stringify(base)).not.toContain('birth_date');

    const at21 = queryOf({ ...age, threshold: 21 } as WorkflowStep, 1);
    expect(JSON.stringify(at21.dcql_query)).toContain('age_over_21');
    expect(JSON.stringify(queryOf(age, 1).dcql_query)).not.toContain('age_over_21');
    const ageBound = queryOf(age, 1, ['given_name']);
    expect(JSON.stringify(ageBound.dcql_query)).toContain('given_name');
    expect(JSON.stringify(queryOf(age, 1).dcql_query)).not.toContain('given_name');
  });

  it('refuses a step it cannot ask for on every call (a refusal is not remembered)', () => {
    const bad = { primitive: 'identify', claims: ['shoe_size'] } as unknown as WorkflowStep;
    expect(() => queryOf(bad, 1)).toThrow(/shoe_size/);
    expect(() => queryOf(bad, 2)).toThrow(/shoe_size/);
  });
});

describe('StepQueryMemo', () => {
  it('builds once per key, holds at most its bound, oldest out', () => {
    const memo = new StepQueryMemo(1);
    let builds = 0;
    const build = () => {
      builds++;
      return buildIdentifyDcqlQuery('pid', PID_VCT, ['given_name']);
    };
    const first = memo.get('a', build);
    expect(memo.get('a', build)).toBe(first);
    expect(builds).toBe(1);
    memo.get('b', build);
    expect(builds).toBe(2);
    const again = memo.get('a', build);
    expect(builds).toBe(3);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
  });
});

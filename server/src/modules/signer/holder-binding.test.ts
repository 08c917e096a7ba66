// The comparison rule of binding by claims (ADR 0026) and the decision table, without a database.
import { describe, expect, it } from 'vitest';
import { sameClaimValue } from '../verification/identifying-claims';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { anchorIdentifyingClaims, decideHolderBinding, loadAnchorHolder } from './holder-binding';

describe('holder binding', () => {
  it('normalises NFC, case (full folding of ß) and whitespace, but keeps diacritics', () => {
    expect(sameClaimValue('Mu\u0308ller', 'Müller')).toBe(true); // decomposed vs composed
    expect(sameClaimValue('  ERIKA   Maria ', 'erika maria')).toBe(true);
    expect(sameClaimValue('STRASSE', 'Straße')).toBe(true);
    expect(sameClaimValue('Müller', 'Muller')).toBe(false);
    expect(sameClaimValue('Erika', 'Erik')).toBe(false);
  });

  it('an anchor binds by claims only with the full name; an age check binds by key only', () => {
    expect(
      anchorIdentifyingClaims({ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] }),
    ).toEqual(['given_name', 'family_name', 'birth_date']);
    expect(
      anchorIdentifyingClaims({ primitive: 'identify', claims: ['family_name', 'nationality'] }),
    ).toEqual([]);
    expect(anchorIdentifyingClaims({ primitive: 'sign', documents: 1 })).toEqual([
      'given_name',
      'family_name',
    ]);
    expect(anchorIdentifyingClaims({ primitive: 'age_verify', threshold: 18 })).toEqual([]);
  });

  it('decides first, holder_key, claims, opted_out, or refuses with holder_mismatch', () => {
    const steps: WorkflowStep[] = [
      { primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date'] },
      { primitive: 'sign', documents: 1 },
      { primitive: 'sign', documents: 1, holder: 'any' },
    ];
    const erika = { given_name: 'Erika', family_name: 'Mustermann', birth_date: '1984-01-12' };
    const anchor = { holderKeyThumbprint: 'k1', claims: erika };
    const at = (stage: number, key: string, claims: Record<string, unknown>) =>
      decideHolderBinding({
        steps,
        stage,
        anchor: stage === 0 ? null : anchor,
        holderKeyThumbprint: key,
        claims,
      });
    expect(at(0, 'k1', erika).by).toBe('first');
    expect(at(1, 'k1', {}).by).toBe('holder_key');
    expect(at(1, 'k2', { ...erika, family_name: 'MUSTERMANN ' }).by).toBe('claims');
    expect(at(2, 'k9', { given_name: 'Max' })).toEqual({ by: 'opted_out', bound_to_stage: null });
    // ADR 0046: the binding is a fact, never the key (no thumbprint in any binding)
    for (const b of [at(0, 'k1', erika), at(1, 'k1', {}), at(1, 'k2', { ...erika })])
      expect(JSON.stringify(b)).not.toMatch(/k1|k2|thumbprint/);
    expect(() => at(1, 'k2', { ...erika, birth_date: '2014-01-12' })).toThrow(
      expect.objectContaining({ code: 'holder_mismatch' }),
    );
    // a missing claim never counts as a match
    expect(() => at(1, 'k2', { given_name: 'Erika', family_name: 'Mustermann' })).toThrow(
      expect.objectContaining({ code: 'holder_mismatch' }),
    );
  });

  it('reads the anchor holder from the stored result completion hands it, not from the session tables', async () => {
    const noEvidence = {
      open: async () => {
        throw new Error('an identify anchor keeps its claims in its result, not in evidence');
      },
    };
    const steps: WorkflowStep[] = [
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
      { primitive: 'sign', documents: 1 },
    ];
    const result = JSON.stringify({
      claims: { given_name: 'Erika', family_name: 'Mustermann', nationality: 'DE' },
    });
    const m = {} as never; // no database: the function is given everything it reads
    expect(
      await loadAnchorHolder(m, noEvidence, { id: 'ses_1', anchorHolderKey: 'tp-row' }, steps, result),
    ).toEqual({
      holderKeyThumbprint: 'tp-row',
      claims: { given_name: 'Erika', family_name: 'Mustermann' },
    });
    // a session whose anchor completed before ADR 0046 has the thumbprint in its result
    const old = JSON.stringify({ claims: {}, holder_binding: { holder_key_thumbprint: 'tp-old' } });
    expect(
      (await loadAnchorHolder(m, noEvidence, { id: 'ses_1', anchorHolderKey: null }, steps, old))
        .holderKeyThumbprint,
    ).toBe('tp-old');
    await expect(
      loadAnchorHolder(m, noEvidence, { id: 'ses_1', anchorHolderKey: null }, steps, '{}'),
    ).rejects.toThrow('no recorded holder key');
  });
});

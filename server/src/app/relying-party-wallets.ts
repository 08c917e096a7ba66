// What a wallet names the business by in an environment, and why (issue 29, ADR 0052): the relying-party
// screen tells the truth about whether a saved change reaches wallets. The same decision as
// WalletTransports.withVerifierInfo (ADR 0040): an imported registration certificate bound to the signing
// leaf wins (sandbox, or production with VERIFIER_INFO_PRODUCTION); else in the sandbox the registrar's, made
// per request from the current relying-party data, when an operator has turned registrar mode on; else none.
import { decodeJwt } from 'jose';
import { registrationSubjectFor } from '../modules/relying-party/registration-certificates';
import type { WalletNaming } from '../modules/relying-party/relying-party.resolver';
import type { ApiServices } from './service-types';

export function walletNamingOf(s: ApiServices) {
  return async (businessId: string, environment: 'sandbox' | 'production'): Promise<WalletNaming> => {
    const registrarOn = environment === 'sandbox' && !!(await s.verifierIdentity.registrar.currentCa());
    if (environment === 'sandbox' || s.config.verifierInfoProduction) {
      const identity = await s.verifierIdentity.forBusiness({ id: businessId, environment });
      const subject = registrationSubjectFor(identity.x5c[0] as string, identity.clientId);
      const imported = await s.registrationCerts.forRequest(businessId, environment, subject);
      if (imported) {
        const name = decodeJwt(imported).name;
        return { source: 'imported', name: typeof name === 'string' ? name : null };
      }
    }
    return registrarOn ? { source: 'registrar', name: null } : { source: 'none', name: null };
  };
}

// The hosted page's "open the link" route: the first thing the signer page does. It gives the browser its
// server-issued binding cookie (or renews the one it holds) and records the support timeline's `opened` once;
// everything the page then reads comes from the GraphQL signer query (signer.resolver.ts), which refuses a
// browser without this cookie.
import type { RouteRegistry } from '../../common/http';
import { browserTokenOf, setBrowserCookie } from './browser-cookie';
import type { SessionTransport } from './signer.transport';

export function registerSignerRoutes(
  reg: RouteRegistry,
  transport: Pick<SessionTransport, 'openLink'>,
): void {
  reg.add({
    method: 'post',
    path: '/t/sessions/:id/open',
    auth: 'signer',
    summary: 'Hosted page: open the link (binding cookie issued or renewed; no session data)',
    contract: {
      operationId: 'transportOpen',
      response: { status: 204, description: 'cookie set; read the session with GraphQL signerSession' },
      errors: ['not_found'],
    },
    handler: async (req, res) => {
      res.setHeader('Cache-Control', 'no-store');
      const out = await transport.openLink(String(req.params.id), browserTokenOf(req));
      setBrowserCookie(res, out.cookie);
      res.status(204).end();
    },
  });
}

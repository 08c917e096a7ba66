// Owns GET /verify (ADR 0047): the receipt verification page of this service's own origin, the verify entry
// of the hosted-web build. The page fetches only this origin's published key set and checks the file in the
// browser: `connect-src 'self'` keeps it from fetching any address a receipt names, and nothing is uploaded
// (no form, no route takes a file). Public markup; no data of any session.
import fs from 'node:fs';
import path from 'node:path';
import type express from 'express';
import type { Config } from '../config/config';

export function mountVerifyPage(app: express.Express, config: Config): void {
  const page = path.join(config.hostedWebDist, 'verify.html');
  app.get('/verify', (_req, res) => {
    if (!fs.existsSync(page)) {
      res
        .status(503)
        .type('text/plain')
        .send('The verification page is not built: run `pnpm --filter hosted-web build`.');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.setHeader(
      'Content-Security-Policy',
      "default-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; " +
        "frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    );
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.sendFile(page);
  });
}

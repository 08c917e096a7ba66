// Owns /favicon.ico (issue 29): browsers ask for it on every page of the service (the signer's page, the
// dashboard, the error reference), and a 404 there is noise in every log and devtools console. One 32×32 icon
// (a white check on the default accent blue), embedded so it needs no file of the build.
import type express from 'express';

const FAVICON_ICO = Buffer.from(
  'AAABAAEAICAAAAEAIADLAAAAFgAAAIlQTkcNChoKAAAADUlIRFIAAAAgAAAAIAgGAAAAc3p69AAAAJJJREFUeNrtl0EOgCAMBPmIX/L9/kZvhmhBtmxbAm7CtTMkUGhKhWz7cTJXagkbCsl4wUUJb/hLYm2BKPgtMbXAM2sJSHETKMVFAIHTBVA4VUADrwoghbRwSKBWUAuHBaTCPbtXCeTFe+Gfh1AT+ltgCW++hlZwqA9YwOFGxIarOmG4wFT/wv9bPs5oNsRwGjWeXwsVbEZLR8+fAAAAAElFTkSuQmCC',
  'base64',
);

export function mountFavicon(app: express.Express): void {
  app.get('/favicon.ico', (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.type('image/x-icon').send(FAVICON_ICO);
  });
}

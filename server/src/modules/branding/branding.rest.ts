// Serves business logos by content hash (ADR 0019): public (a logo is shown to every signer), cached for a
// year because a new logo has a new hash, always with the stored magic-byte type, nosniff and a CSP that lets
// the response do nothing but be an image. Only PNG, JPEG and WebP are ever stored, so nothing here is SVG.
import { AppError } from '../../common/errors';
import type { RouteRegistry } from '../../common/http';
import { type BrandingService, LOGO_PATH } from './branding.service';

export function registerBrandingRoutes(reg: RouteRegistry, service: BrandingService): void {
  reg.add({
    method: 'get',
    path: `${LOGO_PATH}/:sha256`,
    auth: 'public',
    summary: 'A business logo by the SHA-256 of its bytes (PNG, JPEG or WebP), for the hosted page',
    handler: async (req, res) => {
      const sha256 = String(req.params.sha256);
      const logo = await service.logoByHash(sha256);
      if (!logo) throw new AppError('not_found', 'No logo with this hash.');
      res.setHeader('Content-Type', logo.contentType);
      res.setHeader('Content-Length', String(logo.bytes.length));
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('ETag', `"${sha256}"`);
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
      res.setHeader('Content-Disposition', 'inline; filename="logo"');
      if (req.header('if-none-match') === `"${sha256}"`) {
        res.status(304).end();
        return;
      }
      res.status(200).end(logo.bytes);
    },
  });
}

// Owns the development webhook receiver (sandbox tooling): POST /dev/webhook-receiver verifies and keeps the
// last 100 deliveries in memory; GET shows them (HTML, or JSON with ?format=json). Point a sandbox endpoint at
// `<server>/dev/webhook-receiver` to watch webhooks without running a receiver of your own.
// Needs the RAW body: the composition root mounts express.raw({ type: '*/*' }) on this path, so req.body is a
// Buffer (the signature covers the exact bytes, not re-serialized JSON).
import type { DataSource } from 'typeorm';
import { Like } from 'typeorm';
import type { Clock } from '../../common/clock';
import { type RouteRegistry, sendJson } from '../../common/http';
import { logTag } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { WebhookSecretBox } from './secret-box';
import { verifyWebhookSignature } from './signature';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';

export const DEV_RECEIVER_PATH = '/dev/webhook-receiver';
const KEEP = 100;

export interface DevDelivery {
  receivedAt: string;
  event: string | null;
  deliveryId: string | null;
  signatureValid: boolean;
  /** Parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
}

export function registerDevReceiver(
  reg: RouteRegistry,
  deps: { ds: DataSource; logger: Logger; clock: Clock; secrets: WebhookSecretBox },
): { deliveries(): DevDelivery[] } {
  const received: DevDelivery[] = []; // newest first

  reg.add({
    method: 'post',
    path: DEV_RECEIVER_PATH,
    auth: 'sandbox',
    summary: 'Development webhook receiver: verifies and records a delivery.',
    handler: async (req, res) => {
      const raw = Buffer.isBuffer(req.body)
        ? req.body.toString('utf8')
        : typeof req.body === 'string'
          ? req.body
          : '';
      // Any endpoint pointing at this receiver may have sent it; the signature must verify under one of them.
      const endpoints = await deps.ds
        .getRepository(WebhookEndpointEntity)
        .find({ select: { id: true, secret: true }, where: { url: Like(`%${DEV_RECEIVER_PATH}%`) } });
      const now = deps.clock.now();
      const signatureValid = endpoints.some((e) =>
        verifyWebhookSignature({
          secret: deps.secrets.open(e.id, e.secret),
          signatureHeader: req.get('x-service-signature'),
          timestamp: req.get('x-service-timestamp'),
          body: raw,
          now,
        }),
      );
      // Our deliveries are a few KiB; anything posted here beyond 32 KiB is kept as a truncated text, so the
      // page (the last 100 deliveries) stays small whatever anyone posts.
      let body: unknown = raw.length > 32 * 1024 ? `${raw.slice(0, 32 * 1024)}… (truncated)` : raw;
      try {
        if (raw.length > 32 * 1024) throw new Error('kept as text');
        const parsed: unknown = JSON.parse(raw);
        // JSON.parse accepts nesting that JSON.stringify (the page, ?format=json) overflows on: such a body
        // would make every later read of the receiver a 500. Kept as text instead.
        JSON.stringify(parsed, null, 2);
        body = parsed;
      } catch {
        // keep the raw text
      }
      const deliveryId = req.get('x-service-delivery-id') ?? null;
      const event = req.get('x-service-event') ?? null;
      received.unshift({ receivedAt: now.toISOString(), event, deliveryId, signatureValid, body });
      received.length = Math.min(received.length, KEEP);
      // The delivery id embeds the session id (a capability): log only a tag of it.
      deps.logger.info('dev webhook receiver', {
        event,
        delivery: deliveryId ? logTag(deliveryId) : null,
        signature_ok: signatureValid,
      });
      res.status(204).end();
    },
  });

  reg.add({
    method: 'get',
    path: DEV_RECEIVER_PATH,
    auth: 'sandbox',
    summary: 'Development webhook receiver: recent deliveries (HTML, or ?format=json).',
    handler: (req, res) => {
      if (req.query.format === 'json') return sendJson(res, 200, { deliveries: received });
      res.setHeader('Cache-Control', 'no-store');
      res.status(200).type('text/html; charset=utf-8').send(renderPage(received));
    },
  });

  return { deliveries: () => [...received] };
}

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
  );

/**
 * One card per delivery (time, event, signature check, delivery id, the body), not a table: a long unbroken
 * value (an id, a token in the body) wraps instead of pushing the page wider than the window.
 */
function renderPage(list: DevDelivery[]): string {
  const cards = list
    .map(
      (d) => `<li><article>
  <p class="head"><strong>${escapeHtml(d.event ?? '(no event)')}</strong> · <time datetime="${escapeHtml(d.receivedAt)}">${escapeHtml(d.receivedAt)}</time> · ${d.signatureValid ? '<span class="ok">signature valid</span>' : '<span class="bad">signature INVALID</span>'}</p>
  ${d.deliveryId ? `<p class="id">Delivery <code>${escapeHtml(d.deliveryId)}</code></p>` : ''}
  <pre>${escapeHtml(typeof d.body === 'string' ? d.body : JSON.stringify(d.body, null, 2))}</pre>
</article></li>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Webhook receiver</title>
<style>:root{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;line-height:1.5;color:#1a1a1a}
body{margin:0;background:#f6f7f9}main{max-width:64rem;margin:0 auto;padding:1.5rem 1rem}h1{font-size:1.5rem;margin:.25rem 0 .75rem}
ol{list-style:none;padding:0;margin:1rem 0;display:grid;gap:.75rem}article{background:#fff;border:1px solid #d5d9e0;border-radius:8px;padding:.75rem 1rem;min-width:0}
article p{margin:0 0 .4rem;overflow-wrap:anywhere}.ok{color:#1d6b2f}.bad{color:#a4161a;font-weight:700}.id{color:#444;font-size:.9rem}
code,pre{overflow-wrap:anywhere;word-break:break-word}pre{margin:0;white-space:pre-wrap;background:#f6f7f9;padding:.5rem;border-radius:6px;font-size:.85rem}
a{color:#0b4fb3}</style>
</head><body><main>
<nav><a href="/">Start page</a></nav>
<h1>Webhook receiver</h1>
<p>Last ${KEEP} deliveries to <code>${DEV_RECEIVER_PATH}</code>, newest first. <a href="?format=json">JSON</a></p>
${cards ? `<ol>${cards}</ol>` : '<p>No deliveries yet.</p>'}
</main></body></html>`;
}

// Owns TRUST_LISTS_FILE: a JSON array of trust lists to configure at start, each
// {name, kind: "lotl"|"lote", source: URL or absolute path, environment, routes: [route ids],
//  anchors: [PEM file paths], doctypes?: [mdoc docTypes]}. Rows are written without fetching (a start must not
// wait on the network); the worker loads them on its next pass (next_update NULL is due).
import fs from 'node:fs';
import { z } from 'zod';
import type { TrustListService } from './trust-list.service';

const ListConfig = z.array(
  z.object({
    name: z.string().min(1).max(200),
    kind: z.enum(['lotl', 'lote']),
    source: z.string().min(1).max(1000),
    environment: z.enum(['sandbox', 'production']),
    routes: z.array(z.string()).min(1),
    anchors: z.array(z.string()).min(1),
    doctypes: z.array(z.string()).optional(),
  }),
);

export async function configureTrustLists(service: TrustListService, file: string): Promise<void> {
  const parsed = ListConfig.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Error(`Invalid TRUST_LISTS_FILE ${file}: ${parsed.error.message}`);
  for (const l of parsed.data)
    await service.configure({
      ...l,
      anchorsPem: l.anchors.map((p) => fs.readFileSync(p, 'utf8')).join('\n'),
    });
}

// Factories for workflows of any primitive, and multipart session creation, as a business does it: GraphQL to
// publish, REST (JSON or multipart/form-data) to create.
import type { Api, Json } from './harness';

export interface StepInput {
  primitive: 'identify' | 'age_verify' | 'sign' | 'attestation';
  claims?: string[];
  threshold?: number;
  documents?: number;
  terms?: string;
  gateAfter?: boolean;
  conditions?: {
    claim: string;
    operator: 'equals' | 'in' | 'not_in';
    values: string[];
    outcome: 'fail' | 'skip' | 'complete';
    skipTo?: number;
    failureReason?: string;
  }[];
  /** ADR 0026: same_as_first (default) or any (opted out). */
  holder?: 'same_as_first' | 'any';
  /** ADR 0036: the credential routes whose issuer trust may validate the step (default: all available). */
  routes?: string[];
}

/** Creates and publishes a workflow; configures the webhook endpoint when `webhookUrl` is given. */
export async function publishWorkflow(
  api: Api,
  steps: StepInput[],
  webhookUrl?: string,
  name = 'Workflow',
  /** API-only access (spec §1; the default): dashboard users cannot create its sessions, API keys can. */
  apiOnly = true,
): Promise<{ workflowId: string; webhookSecret?: string }> {
  const created = await api.gql(
    `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
    { input: { name, steps, apiOnly } },
  );
  if (created.errors) throw new Error(JSON.stringify(created.errors));
  const workflowId = created.data.createWorkflow.id as string;
  const published = await api.gql(`mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }`, {
    id: workflowId,
  });
  if (published.errors) throw new Error(JSON.stringify(published.errors));
  if (!webhookUrl) return { workflowId };
  const hook = await api.gql(
    `mutation($url: String!) { configureWebhookEndpoint(url: $url) { id url secret } }`,
    { url: webhookUrl },
  );
  if (hook.errors) throw new Error(JSON.stringify(hook.errors));
  return { workflowId, webhookSecret: hook.data.configureWebhookEndpoint.secret as string };
}

export interface FilePart {
  name?: string;
  filename: string;
  type: string;
  bytes: Uint8Array | string;
}

/** POST /v1/sessions as multipart/form-data (fields as strings, file parts with their content types). */
export async function createMultipart(
  api: Api,
  fields: Record<string, string>,
  files: FilePart[],
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Json }> {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) {
    const bytes = typeof f.bytes === 'string' ? new TextEncoder().encode(f.bytes) : f.bytes;
    form.append(f.name ?? 'file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: f.type }), f.filename);
  }
  const res = await fetch(`${api.baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${api.apiKey}`, ...headers },
    body: form,
  });
  const text = await res.text();
  let body: Json;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

/** A small but real PDF (header, one empty page, trailer). */
export function minimalPdf(text = 'Contract'): Uint8Array {
  return new TextEncoder().encode(
    `%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\n% ${text}\ntrailer<</Root 1 0 R>>\n%%EOF\n`,
  );
}

/**
 * A real PDF of several A4 pages, each page saying "<title>, page n of N" in Helvetica (with an xref table, as a
 * viewer expects).
 */
export function multiPagePdf(title: string, pages: number): Uint8Array {
  const objects: string[] = [];
  const pageIds = Array.from({ length: pages }, (_, i) => 4 + i * 2);
  objects[1] = '<</Type/Catalog/Pages 2 0 R>>';
  objects[2] = `<</Type/Pages/Kids[${pageIds.map((id) => `${id} 0 R`).join(' ')}]/Count ${pages}>>`;
  objects[3] = '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>';
  pageIds.forEach((id, i) => {
    const stream = `BT /F1 28 Tf 60 760 Td (${title}, page ${i + 1} of ${pages}) Tj ET`;
    objects[id] =
      `<</Type/Page/Parent 2 0 R/MediaBox[0 0 595 842]/Resources<</Font<</F1 3 0 R>>>>/Contents ${id + 1} 0 R>>`;
    objects[id + 1] = `<</Length ${stream.length}>>stream\n${stream}\nendstream`;
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  for (let id = 1; id < objects.length; id++) {
    offsets[id] = out.length;
    out += `${id} 0 obj${objects[id]}endobj\n`;
  }
  const xref = out.length;
  out += `xref\n0 ${objects.length}\n0000000000 65535 f \n`;
  for (let id = 1; id < objects.length; id++) out += `${String(offsets[id]).padStart(10, '0')} 00000 n \n`;
  out += `trailer<</Size ${objects.length}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

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
  /** ADR 0026: same_as_first (default) or any (opted out). */
  holder?: 'same_as_first' | 'any';
}

/** Creates and publishes a workflow; configures the webhook endpoint when `webhookUrl` is given. */
export async function publishWorkflow(
  api: Api,
  steps: StepInput[],
  webhookUrl?: string,
  name = 'Workflow',
): Promise<{ workflowId: string; webhookSecret?: string }> {
  const created = await api.gql(
    `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }`,
    { input: { name, steps } },
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

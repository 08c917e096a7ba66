// A session's cross-device request object as a wallet fetches it (issue 19): creates a session of a workflow,
// starts it, asks for the cross-device request, fetches the JAR from its request_uri and verifies it with the
// leaf in its x5c. `registrationClaims` opens the rc-wrp+jwt of its verifier_info (ADR 0035) after checking its
// signature with the certificate its x5c names.
import { compactVerify, decodeProtectedHeader, importX509 } from 'jose';
import { expect } from 'vitest';
import type { Api, Json } from './harness';
import { SignerClient } from './signer';
import { pemOf } from './test-ca';

export interface SignedRequest {
  /** The browser that started the session: ask it again for a fresh request of the same session. */
  signer: SignerClient;
  uri: string;
  jar: string;
  x5c: string[];
  payload: Json;
}

/** A fresh cross-device request of a started session (a new wallet request, same pinned revision). */
export async function crossDeviceRequest(signer: SignerClient): Promise<SignedRequest> {
  const cd = (await signer.call('POST', '/wallet-request/cross_device')).body as Json;
  const jar = await (await fetch(new URL(cd.uri).searchParams.get('request_uri') as string)).text();
  const x5c = decodeProtectedHeader(jar).x5c as string[];
  const { payload } = await compactVerify(jar, await importX509(pemOf(x5c.slice(0, 1)), 'ES256'));
  return {
    signer,
    uri: cd.uri as string,
    jar,
    x5c,
    payload: JSON.parse(new TextDecoder().decode(payload)) as Json,
  };
}

/** Creates a session of the workflow (API key) and answers its first cross-device request object. */
export async function signedRequestOf(baseUrl: string, api: Api, workflowId: string): Promise<SignedRequest> {
  const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
  expect(created.status).toBe(201);
  const signer = new SignerClient(baseUrl, created.body.id as string);
  expect((await signer.start()).status).toBe(200);
  return crossDeviceRequest(signer);
}

/** The verified claims of the request's registration certificate (verifier_info[0]), and its header. */
export async function registrationClaims(payload: Json): Promise<{ header: Json; claims: Json }> {
  const info = payload.verifier_info as Json[];
  expect(info).toHaveLength(1);
  expect(info[0]?.format).toBe('jwt');
  const rc = info[0]?.data as string;
  const header = decodeProtectedHeader(rc) as Json;
  const { payload: body } = await compactVerify(rc, await importX509(pemOf(header.x5c as string[]), 'ES256'));
  return { header, claims: JSON.parse(new TextDecoder().decode(body)) as Json };
}

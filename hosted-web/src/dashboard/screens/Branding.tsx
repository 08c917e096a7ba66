// The hosted page branding of the current environment (issue 10, ADR 0019): display name, logo (upload with
// preview, remove), accent colour with a live contrast verdict (the server's rule: white text on the accent
// needs at least 4.5:1), a preview of the signer page header, and the origins a session return_url may use.
import { createMemo, createResource, createSignal, For, Show } from 'solid-js';
import type {
  BrandingScreenQuery,
  BrandingScreenQueryVariables,
  RemoveLogoMutation,
  RemoveLogoMutationVariables,
  SetBrandingMutation,
  SetBrandingMutationVariables,
  SetLogoMutation,
  SetLogoMutationVariables,
  SetReturnOriginsMutation,
  SetReturnOriginsMutationVariables,
} from '../../graphql/generated';
import { environment, gql, gqlUpload, operation } from '../api';
import DOCUMENT from '../graphql/branding.graphql?raw';

const BRANDING = operation<BrandingScreenQuery, BrandingScreenQueryVariables>(DOCUMENT, 'BrandingScreen');
const SET_BRANDING = operation<SetBrandingMutation, SetBrandingMutationVariables>(DOCUMENT, 'SetBranding');
const SET_LOGO = operation<SetLogoMutation, SetLogoMutationVariables>(DOCUMENT, 'SetLogo');
const REMOVE_LOGO = operation<RemoveLogoMutation, RemoveLogoMutationVariables>(DOCUMENT, 'RemoveLogo');
const SET_RETURN_ORIGINS = operation<SetReturnOriginsMutation, SetReturnOriginsMutationVariables>(
  DOCUMENT,
  'SetReturnOrigins',
);

import { ErrorNote } from '../Screen';
import '../branding.css';

/** What the server takes (branding.service.ts LOGO_LIMITS); checked there, shown here. */
const LOGO_MAX_BYTES = 256 * 1024;
const DEFAULT_ACCENT = '#0b57d0';
const HEX = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.x contrast ratio of `#rrggbb` against white: the same formula as the server's check. */
export function contrastWithWhite(hex: string): number {
  const ch = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * (ch[0] as number) + 0.7152 * (ch[1] as number) + 0.0722 * (ch[2] as number);
  return 1.05 / (l + 0.05);
}

export function Branding() {
  const [data, { refetch }] = createResource(environment, () => gql(BRANDING));
  const [name, setName] = createSignal<string | undefined>();
  const [accent, setAccent] = createSignal<string | undefined>();
  const [file, setFile] = createSignal<File | null>(null);
  const [filePreview, setFilePreview] = createSignal<string | null>(null);
  const [origin, setOrigin] = createSignal('');
  const [notice, setNotice] = createSignal('');
  const [error, setError] = createSignal<unknown>(null);
  const [busy, setBusy] = createSignal(false);

  // the form shows what was typed, else what is saved
  const shownName = () => name() ?? data()?.branding.displayName ?? '';
  const shownAccent = () => accent() ?? data()?.branding.accentColor ?? '';
  const ratio = createMemo(() => (HEX.test(shownAccent()) ? contrastWithWhite(shownAccent()) : null));
  const verdict = () => {
    const r = ratio();
    if (r === null)
      return shownAccent()
        ? 'Enter the colour as #rrggbb, for example #0f5132.'
        : 'The default accent is used.';
    return r >= 4.5
      ? `Contrast with white button text: ${r.toFixed(2)}:1. Passes (WCAG AA needs 4.5:1).`
      : `Contrast with white button text: ${r.toFixed(2)}:1. Too low: WCAG AA needs 4.5:1. Choose a darker colour.`;
  };
  const previewAccent = () => (HEX.test(shownAccent()) ? shownAccent() : DEFAULT_ACCENT);
  /** What the page shows: the name typed here, else the page's public name (the relying party's first). */
  const previewName = () => name() || data()?.relyingPartyWallets.pageName || shownName();
  const previewWorkflow = () =>
    data()?.workflows.find((w) => w.latestRevision > 0)?.name ?? 'Your workflow’s name';
  const previewLogo = () => filePreview() ?? data()?.branding.logoUrl ?? null;

  const act = async (f: () => Promise<string>) => {
    setError(null);
    setNotice('');
    setBusy(true);
    try {
      setNotice(await f());
      await refetch();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const saveBranding = (e: SubmitEvent) => {
    e.preventDefault();
    void act(async () => {
      await gql(SET_BRANDING, {
        input: { displayName: shownName().trim() || null, accentColor: shownAccent() || null },
      });
      setName(undefined);
      setAccent(undefined);
      return 'Branding saved.';
    });
  };

  // previewed as a data: URL: the dashboard's CSP allows images from 'self' and data: only (no blob:)
  const pick = (e: Event) => {
    const f = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
    setFile(f);
    setFilePreview(null);
    if (!f || f.size > LOGO_MAX_BYTES) return;
    const reader = new FileReader();
    reader.onload = () => {
      if (file() === f && typeof reader.result === 'string') setFilePreview(reader.result);
    };
    reader.readAsDataURL(f);
  };
  const clearFile = (input: HTMLInputElement | undefined) => {
    setFile(null);
    setFilePreview(null);
    if (input) input.value = '';
  };
  let fileInput: HTMLInputElement | undefined;
  const upload = (e: SubmitEvent) => {
    e.preventDefault();
    const f = file();
    if (!f) return;
    void act(async () => {
      await gqlUpload(SET_LOGO, { logo: f });
      clearFile(fileInput);
      return 'Logo uploaded.';
    });
  };
  const removeLogo = () =>
    act(async () => {
      await gql(REMOVE_LOGO);
      return 'Logo removed.';
    });

  const setOrigins = (origins: string[], done: string) =>
    act(async () => {
      await gql(SET_RETURN_ORIGINS, { origins });
      return done;
    });
  const addOrigin = (e: SubmitEvent) => {
    e.preventDefault();
    const o = origin().trim();
    if (!o) return;
    void setOrigins([...(data()?.returnOrigins ?? []), o], `Added ${o}.`).then(() => {
      if (!error()) setOrigin('');
    });
  };

  return (
    <>
      <p class="d-muted">
        How the hosted page presents your business to signers in <strong>{environment()}</strong>. Sandbox and
        production are branded separately.
      </p>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <p role="status" class={notice() ? 'd-ok' : 'd-sr'}>
        {notice()}
      </p>

      <h2 id="preview-h">Preview of the signer page header</h2>
      <figure class="b-preview" aria-labelledby="preview-h" data-testid="branding-preview">
        <Show when={previewLogo()}>
          {(src) => <img class="b-preview-logo" src={src()} alt={shownName() || 'Your logo'} />}
        </Show>
        <p class="b-preview-workflow">{previewWorkflow()}</p>
        <p class="b-preview-name">{previewName()}</p>
        <span class="b-preview-button" style={{ background: previewAccent() }}>
          Start
        </span>
      </figure>

      <h2>Name and accent colour</h2>
      <form class="d-form b-form" onSubmit={saveBranding}>
        <label for="branding-name">Display name (empty: your business name)</label>
        <input
          id="branding-name"
          maxLength={80}
          value={shownName()}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for="branding-accent">Accent colour (#rrggbb; empty: the default)</label>
        <div class="b-accent">
          <input
            id="branding-accent"
            value={shownAccent()}
            placeholder={DEFAULT_ACCENT}
            aria-describedby="branding-contrast"
            onInput={(e) => setAccent(e.currentTarget.value.trim())}
          />
          <input
            type="color"
            aria-label="Pick the accent colour"
            value={HEX.test(shownAccent()) ? shownAccent().toLowerCase() : DEFAULT_ACCENT}
            onInput={(e) => setAccent(e.currentTarget.value)}
          />
        </div>
        <p id="branding-contrast" data-testid="contrast-verdict" aria-live="polite">
          {verdict()}
        </p>
        <button type="submit" class="d-primary" disabled={busy()}>
          Save name and colour
        </button>
      </form>

      <h2>Logo</h2>
      <Show
        when={data()?.branding.logoUrl}
        fallback={<p class="d-muted">No logo in {environment()}: the page shows the name only.</p>}
      >
        {(src) => (
          <div class="b-current">
            <img class="b-logo" src={src()} alt="Current logo" data-testid="current-logo" />
            <button type="button" class="d-danger" disabled={busy()} onClick={removeLogo}>
              Remove logo
            </button>
          </div>
        )}
      </Show>
      <form class="d-form b-form" onSubmit={upload}>
        <label for="branding-logo">
          New logo: PNG, JPEG or WebP, at most 256 KiB, 16 to 2048 pixels a side
        </label>
        <input
          id="branding-logo"
          type="file"
          accept="image/png,image/jpeg,image/webp"
          ref={fileInput}
          onChange={pick}
        />
        <Show when={file()}>
          {(f) => (
            <p class={f().size > LOGO_MAX_BYTES ? 'd-warn' : 'd-muted'}>
              {f().name}: {Math.ceil(f().size / 1024)} KiB
              {f().size > LOGO_MAX_BYTES ? ' (over 256 KiB: it will be refused)' : ' (shown in the preview)'}
            </p>
          )}
        </Show>
        <button type="submit" class="d-primary" disabled={busy() || !file()}>
          Upload logo
        </button>
      </form>

      <h2 id="origins-h">Return origins</h2>
      <p class="d-muted">
        A session's return_url may only point to these origins (scheme://host[:port]);
        {environment() === 'production' ? ' https only in production.' : ' sandbox also allows http.'}
      </p>
      <Show when={data()?.returnOrigins.length} fallback={<p class="d-muted">No origins registered.</p>}>
        <ul class="b-origins" aria-labelledby="origins-h" data-testid="return-origins">
          <For each={data()?.returnOrigins}>
            {(o) => (
              <li>
                <code>{o}</code>
                <button
                  type="button"
                  disabled={busy()}
                  aria-label={`Remove ${o}`}
                  onClick={() =>
                    setOrigins(
                      (data()?.returnOrigins ?? []).filter((x) => x !== o),
                      `Removed ${o}.`,
                    )
                  }
                >
                  Remove
                </button>
              </li>
            )}
          </For>
        </ul>
      </Show>
      <form class="d-form b-form" onSubmit={addOrigin}>
        <label for="branding-origin">Add an origin</label>
        <input
          id="branding-origin"
          placeholder="https://shop.example"
          value={origin()}
          onInput={(e) => setOrigin(e.currentTarget.value)}
        />
        <button type="submit" disabled={busy()}>
          Add origin
        </button>
      </form>
    </>
  );
}

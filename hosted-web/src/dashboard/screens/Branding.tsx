// The hosted page branding of the current environment (issue 10, ADR 0019): display name, logo (upload with
// preview, remove; components/BrandingLogo.tsx), accent colour with a live contrast verdict (the server's rule:
// white text on the accent needs at least 4.5:1), a preview of the signer page header
// (components/BrandingPreview.tsx), and the origins a session return_url may use (components/ReturnOrigins.tsx).
// In the dashboard's language (messages/branding-rp.ts); the ratio is written as numbers are in that language.
import { createMemo, createResource, createSignal, Show } from 'solid-js';
import type {
  BrandingScreenQuery,
  BrandingScreenQueryVariables,
  SetBrandingMutation,
  SetBrandingMutationVariables,
} from '../../graphql/generated';
import { environment, gql, operation } from '../api';
import { BrandingLogo } from '../components/BrandingLogo';
import { BrandingPreview } from '../components/BrandingPreview';
import { ReturnOrigins } from '../components/ReturnOrigins';
import DOCUMENT from '../graphql/branding.graphql?raw';
import { dashLocale, dt } from '../i18n';
import { DATE_LOCALE, ErrorNote } from '../Screen';
import '../branding.css';

const BRANDING = operation<BrandingScreenQuery, BrandingScreenQueryVariables>(DOCUMENT, 'BrandingScreen');
const SET_BRANDING = operation<SetBrandingMutation, SetBrandingMutationVariables>(DOCUMENT, 'SetBranding');

const DEFAULT_ACCENT = '#0b57d0';
const HEX = /^#[0-9a-fA-F]{6}$/;
const WCAG_AA = 4.5;

/** WCAG 2.x contrast ratio of `#rrggbb` against white: the same formula as the server's check. */
export function contrastWithWhite(hex: string): number {
  const ch = [1, 3, 5].map((i) => {
    const c = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const l = 0.2126 * (ch[0] as number) + 0.7152 * (ch[1] as number) + 0.0722 * (ch[2] as number);
  return 1.05 / (l + 0.05);
}

/** A ratio as the chosen language writes numbers (4.50 / 4,50), with `digits` decimals. */
const num = (n: number, digits: number): string =>
  new Intl.NumberFormat(DATE_LOCALE[dashLocale()], {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  }).format(n);

export function Branding() {
  const [data, { refetch }] = createResource(environment, () => gql(BRANDING));
  const [name, setName] = createSignal<string | undefined>();
  const [accent, setAccent] = createSignal<string | undefined>();
  const [filePreview, setFilePreview] = createSignal<string | null>(null);
  const [notice, setNotice] = createSignal('');
  const [error, setError] = createSignal<unknown>(null);
  const [busy, setBusy] = createSignal(false);

  // the form shows what was typed, else what is saved
  const shownName = () => name() ?? data()?.branding.displayName ?? '';
  const shownAccent = () => accent() ?? data()?.branding.accentColor ?? '';
  const ratio = createMemo(() => (HEX.test(shownAccent()) ? contrastWithWhite(shownAccent()) : null));
  const verdict = () => {
    const r = ratio();
    if (r === null) return dt(shownAccent() ? 'br.hexHint' : 'br.defaultAccent');
    return dt(r >= WCAG_AA ? 'br.passes' : 'br.tooLow', { r: num(r, 2), min: num(WCAG_AA, 1) });
  };
  /** What the page shows: the name typed here, else the page's public name (the relying party's first). */
  const previewName = () => name() || data()?.relyingPartyWallets.pageName || shownName();
  const previewWorkflow = () =>
    data()?.workflows.find((w) => w.latestRevision > 0)?.name ?? dt('br.workflowName');

  /** Runs a change: its notice or its error, then the screen reloads. True when it worked. */
  const act = async (f: () => Promise<string>): Promise<boolean> => {
    setError(null);
    setNotice('');
    setBusy(true);
    try {
      setNotice(await f());
      await refetch();
      return true;
    } catch (e) {
      setError(e);
      return false;
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
      return dt('br.saved');
    });
  };

  return (
    <>
      <p class="d-muted">
        {dt('br.introBefore')}
        <strong>{dt(`env.name.${environment()}`)}</strong>
        {dt('br.introAfter')}
      </p>
      <Show when={error()}>{(e) => <ErrorNote error={e()} />}</Show>
      <p role="status" class={notice() ? 'd-ok' : 'd-sr'}>
        {notice()}
      </p>

      <BrandingPreview
        logo={filePreview() ?? data()?.branding.logoUrl ?? null}
        logoAlt={shownName()}
        workflow={previewWorkflow()}
        name={previewName()}
        accent={HEX.test(shownAccent()) ? shownAccent() : DEFAULT_ACCENT}
      />

      <h2>{dt('br.nameAndColour')}</h2>
      <form class="d-form b-form" onSubmit={saveBranding}>
        <label for="branding-name">{dt('br.displayName')}</label>
        <input
          id="branding-name"
          maxLength={80}
          value={shownName()}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        <label for="branding-accent">{dt('br.accent')}</label>
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
            aria-label={dt('br.pickAccent')}
            value={HEX.test(shownAccent()) ? shownAccent().toLowerCase() : DEFAULT_ACCENT}
            onInput={(e) => setAccent(e.currentTarget.value)}
          />
        </div>
        <p id="branding-contrast" data-testid="contrast-verdict" aria-live="polite">
          {verdict()}
        </p>
        <button type="submit" class="d-primary" disabled={busy()}>
          {dt('br.saveNameColour')}
        </button>
      </form>

      <BrandingLogo current={data()?.branding.logoUrl} busy={busy()} act={act} onPreview={setFilePreview} />
      <ReturnOrigins origins={data()?.returnOrigins ?? []} busy={busy()} act={act} />
    </>
  );
}

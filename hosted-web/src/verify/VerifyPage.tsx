// The receipt verification page (/verify, ADR 0047): a person chooses or drops a receipt PDF; the file is read
// in this browser and checked against the key set of this page's own origin (never keys or an address written
// in the file); nothing is uploaded. The verdict names this service; the checks are listed below it.
import { createSignal, For, Match, Show, Switch } from 'solid-js';
import { type AuditJwks, checkReceipt, type ReceiptCheck } from './receipt-check';
import { LANG_NAMES, pickVerifyLang, VERIFY_LANGS, VERIFY_WORDS, type VerifyLang } from './words';

type State =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'keys-failed' }
  | { kind: 'done'; result: ReceiptCheck; fileName: string };

const STORAGE_KEY = 'verify-page-lang';

function initialLang(): VerifyLang {
  try {
    const stored = localStorage.getItem(STORAGE_KEY) as VerifyLang | null;
    if (stored && VERIFY_LANGS.includes(stored)) return stored;
  } catch {}
  return pickVerifyLang(navigator.languages?.length ? navigator.languages : [navigator.language ?? 'en']);
}

let keySet: Promise<AuditJwks> | null = null;
/** This origin's published key set (fetched once; a failure is retried on the next file). */
function ownKeySet(): Promise<AuditJwks> {
  keySet ??= fetch('/.well-known/service-audit-jwks.json', {
    headers: { accept: 'application/json' },
    cache: 'no-cache',
  }).then(async (res) => {
    if (!res.ok) throw new Error(String(res.status));
    const body = (await res.json()) as AuditJwks;
    if (!Array.isArray(body?.keys)) throw new Error('not a key set');
    return body;
  });
  keySet.catch(() => {
    keySet = null;
  });
  return keySet;
}

export function VerifyPage() {
  const [lang, setLang] = createSignal<VerifyLang>(initialLang());
  const [state, setState] = createSignal<State>({ kind: 'idle' });
  const [dragging, setDragging] = createSignal(false);
  const w = () => VERIFY_WORDS[lang()];
  const service = location.host;
  let verdict: HTMLHeadingElement | undefined;
  let input: HTMLInputElement | undefined;

  const chooseLang = (l: VerifyLang) => {
    setLang(l);
    document.documentElement.lang = l;
    try {
      localStorage.setItem(STORAGE_KEY, l);
    } catch {}
  };
  document.documentElement.lang = lang();

  async function check(file: File) {
    setState({ kind: 'checking' });
    try {
      const [jwks, bytes] = await Promise.all([ownKeySet(), file.arrayBuffer()]);
      const result = await checkReceipt(new Uint8Array(bytes), jwks);
      setState({ kind: 'done', result, fileName: file.name });
    } catch {
      setState({ kind: 'keys-failed' });
    }
    queueMicrotask(() => verdict?.focus());
  }

  const date = (iso: string) => {
    const d = new Date(iso);
    return Number.isNaN(d.getTime())
      ? iso
      : new Intl.DateTimeFormat(lang(), { dateStyle: 'long', timeStyle: 'short' }).format(d);
  };

  return (
    <main class="verify">
      <header class="verify-head">
        <h1>{w().title}</h1>
        <label class="verify-lang">
          <span>{w().language}</span>
          <select value={lang()} onChange={(e) => chooseLang(e.currentTarget.value as VerifyLang)}>
            <For each={VERIFY_LANGS}>{(l) => <option value={l}>{LANG_NAMES[l]}</option>}</For>
          </select>
        </label>
      </header>
      <p>{w().intro(service)}</p>
      {/* biome-ignore lint/a11y/noStaticElementInteractions: a drop target only; the button inside is the keyboard and pointer path */}
      <section
        class="verify-drop"
        classList={{ dragging: dragging() }}
        data-testid="drop-zone"
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault();
          setDragging(false);
          const f = e.dataTransfer?.files?.[0];
          if (f) void check(f);
        }}
      >
        <button type="button" class="verify-choose" onClick={() => input?.click()}>
          {w().choose}
        </button>
        <span class="verify-muted">{w().drop}</span>
        <input
          ref={input}
          type="file"
          accept="application/pdf,.pdf"
          class="verify-file"
          aria-label={w().choose}
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) void check(f);
            e.currentTarget.value = '';
          }}
        />
        <span class="verify-muted">{w().privacy}</span>
      </section>

      <div aria-live="polite">
        <Switch>
          <Match when={state().kind === 'checking'}>
            <p class="verify-muted">{w().checking}</p>
          </Match>
          <Match when={state().kind === 'keys-failed'}>
            <h2 ref={verdict} tabindex="-1" class="verdict bad" data-testid="verdict">
              {w().keysFailed(service)}
            </h2>
          </Match>
          <Match
            when={(() => {
              const s = state();
              return s.kind === 'done' ? s : null;
            })()}
          >
            {(done) => {
              const r = () => done().result;
              const claims = () => r().claims;
              return (
                <section class="verify-result">
                  <h2
                    ref={verdict}
                    tabindex="-1"
                    class="verdict"
                    classList={{ good: r().verified, bad: !r().verified }}
                    data-testid="verdict"
                  >
                    {r().verified
                      ? w().verified(service)
                      : r().unreadable
                        ? w().unreadable
                        : w().notIssued(service)}
                  </h2>
                  <p class="verify-muted">{done().fileName}</p>
                  <Show when={!r().verified && !r().unreadable}>
                    <p>{w().notIssuedNote}</p>
                  </Show>
                  <Show when={r().verified}>
                    <p>{w().verifiedNote}</p>
                  </Show>
                  <Show when={claims()}>
                    {(c) => (
                      <>
                        <p data-testid="summary">
                          {r().verified ? '' : `${w().fileSays} `}
                          {w().summary(c().business, c().steps, c().totalSteps, date(c().generatedAt))}
                        </p>
                        <Show when={c().example}>
                          <p class="verify-note">{w().example}</p>
                        </Show>
                        <Show when={c().partial}>
                          <p class="verify-note">{w().partial}</p>
                        </Show>
                        <Show when={!r().verified && c().origin && c().origin !== location.origin}>
                          <p class="verify-note" data-testid="names-other">
                            {w().namesOther(c().origin as string)}
                          </p>
                        </Show>
                      </>
                    )}
                  </Show>
                  <h3>{w().checks}</h3>
                  <ul class="verify-checks">
                    <For each={r().lines}>
                      {(l) => (
                        <li classList={{ ok: l.ok, fail: !l.ok }}>
                          <span class="verify-mark" aria-hidden="true">
                            {l.ok ? '✓' : '✗'}
                          </span>
                          <span>
                            {l.kind === 'step'
                              ? w().step(l.step ?? 0, w().primitives[l.primitive ?? ''] ?? l.primitive ?? '')
                              : l.kind === 'seal'
                                ? w().seal
                                : w().file}
                            {w().colon}
                            <strong>{l.ok ? w().ok : w().failed}</strong>
                            <Show when={l.legacySeal}>
                              <span class="verify-detail">{w().legacySeal}</span>
                            </Show>
                            <Show when={l.detail}>
                              <code class="verify-detail">{l.detail}</code>
                            </Show>
                          </span>
                        </li>
                      )}
                    </For>
                  </ul>
                  <button type="button" class="verify-choose secondary" onClick={() => input?.click()}>
                    {w().another}
                  </button>
                </section>
              );
            }}
          </Match>
        </Switch>
      </div>
      <footer class="verify-muted verify-foot">
        <code>{w().command(location.origin)}</code>
      </footer>
    </main>
  );
}

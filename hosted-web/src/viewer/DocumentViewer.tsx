// One document of a sign step shown inline (ADR 0029): a PDF page by page (pdf.js, loaded on demand from
// ./pdf.ts), an image, or plain text, scaled to the width of the page so a phone needs no pinch-zoom. Below
// it, the exact-bytes download with the SHA-256. A marker after the last page reports, once it has been
// scrolled into view, that the document was shown to its end; the page then tells the server (which records
// exactly that, never that it was read).
import { createEffect, createSignal, For, Match, onCleanup, onMount, Show, Switch } from 'solid-js';
import { documentUrl } from '../api';
import { documentFacts } from '../documents';
import { t } from '../i18n';
import type { SignerDocument } from '../types';

export const PDF = 'application/pdf';
const IMAGE_TYPES = ['image/png', 'image/jpeg'];

interface Page {
  canvas: HTMLCanvasElement;
  text: string;
  printWidth: number;
}

export function DocumentViewer(props: {
  sessionId: string;
  doc: SignerDocument;
  shown: boolean;
  onShownToEnd: (position: number) => void;
}) {
  const [state, setState] = createSignal<'loading' | 'ready' | 'failed'>('loading');
  const [pages, setPages] = createSignal<Page[]>([]);
  const [total, setTotal] = createSignal(0);
  const [text, setText] = createSignal('');
  // "Larger text": PDF pages at print size, scrolled sideways in their own box (a phone fits ~7 px text)
  const [zoomed, setZoomed] = createSignal(false);
  const url = () => documentUrl(props.sessionId, props.doc.position);
  const kind = () =>
    props.doc.contentType === PDF
      ? 'pdf'
      : IMAGE_TYPES.includes(props.doc.contentType)
        ? 'image'
        : props.doc.contentType === 'text/plain'
          ? 'text'
          : 'other';
  let body!: HTMLDivElement;
  let end!: HTMLParagraphElement;
  const signal = { cancelled: false };
  onCleanup(() => {
    signal.cancelled = true;
  });

  onMount(() => {
    if (kind() === 'pdf') {
      void (async () => {
        const res = await fetch(url(), { credentials: 'same-origin', cache: 'no-store' });
        if (!res.ok) throw new Error(String(res.status));
        const bytes = await res.arrayBuffer();
        const { renderPdf } = await import('./pdf');
        await renderPdf(
          bytes,
          Math.max(body.clientWidth, 320),
          (page, _n, of) => {
            setTotal(of);
            setPages((list) => [...list, page]);
          },
          signal,
        );
        setState('ready');
      })().catch(() => setState('failed'));
    } else if (kind() === 'text') {
      void fetch(url(), { credentials: 'same-origin', cache: 'no-store' })
        .then(async (res) => {
          if (!res.ok) throw new Error(String(res.status));
          setText(await res.text());
          setState('ready');
        })
        .catch(() => setState('failed'));
    } else if (kind() === 'other') {
      setState('failed');
    }
    // the end marker counts only once the whole document is on the page and the marker itself is in view
    const observer = new IntersectionObserver((entries) => {
      if (state() === 'ready' && entries.some((e) => e.isIntersecting))
        props.onShownToEnd(props.doc.position);
    });
    observer.observe(end);
    // observing anew reports the marker's current visibility: a short document may already be in full view
    createEffect(() => {
      if (state() !== 'ready') return;
      observer.unobserve(end);
      observer.observe(end);
    });
    onCleanup(() => observer.disconnect());
  });

  return (
    <article
      class="doc-view"
      data-testid={`document-${props.doc.position}`}
      aria-labelledby={`doc-title-${props.doc.position}`}
    >
      <h3 id={`doc-title-${props.doc.position}`} class="doc-title">
        {props.doc.label} <span class="muted doc-facts">({documentFacts(props.doc)})</span>
      </h3>
      <div class="doc-body" ref={body} aria-busy={state() === 'loading'}>
        <Show when={state() === 'loading'}>
          <p class="muted" data-testid="document-loading">
            {t('viewer.loading')}
          </p>
        </Show>
        <Show when={state() === 'failed'}>
          <p class="alert" data-testid="document-failed">
            {t('viewer.failed')}
          </p>
        </Show>
        <Switch>
          <Match when={kind() === 'pdf'}>
            <Show when={pages().length > 0}>
              <p class="doc-zoom">
                <button
                  type="button"
                  class="button secondary"
                  data-testid="document-zoom"
                  aria-pressed={zoomed()}
                  onClick={() => setZoomed(!zoomed())}
                >
                  {t('viewer.zoom')}
                </button>
              </p>
            </Show>
            <For each={pages()}>
              {(page, i) => (
                <figure class="doc-page" data-testid="document-page">
                  <div
                    class="doc-canvas"
                    classList={{ zoomed: zoomed() }}
                    // a box that scrolls sideways is reachable by keyboard
                    tabIndex={zoomed() ? 0 : undefined}
                    role="img"
                    aria-label={t('viewer.page', { n: i() + 1, total: total() })}
                    ref={(el) => {
                      page.canvas.setAttribute('aria-hidden', 'true');
                      el.append(page.canvas);
                      createEffect(() => {
                        page.canvas.style.width = zoomed() ? `${page.printWidth}px` : '';
                      });
                    }}
                  />
                  <figcaption class="muted">{t('viewer.page', { n: i() + 1, total: total() })}</figcaption>
                  <Show when={page.text}>
                    <details class="doc-text-alt">
                      <summary>{t('viewer.pageText')}</summary>
                      <p class="doc-text-lines">{page.text}</p>
                    </details>
                  </Show>
                </figure>
              )}
            </For>
          </Match>
          <Match when={kind() === 'image'}>
            <img
              class="doc-image"
              src={url()}
              alt={props.doc.label}
              onLoad={() => setState('ready')}
              onError={() => setState('failed')}
            />
          </Match>
          <Match when={kind() === 'text'}>
            <Show when={state() === 'ready'}>
              <pre class="doc-text" data-testid="document-text">
                {text()}
              </pre>
            </Show>
          </Match>
        </Switch>
      </div>
      <p class="doc-end" ref={end} data-testid="document-end" data-shown={props.shown ? 'true' : 'false'}>
        <Show when={state() === 'ready'}>
          {props.shown ? t('viewer.shown') : t('viewer.end', { label: props.doc.label })}
        </Show>
      </p>
      <p class="doc-download">
        <a href={url()} download={props.doc.label} data-testid="document-download">
          {t('viewer.download')}
        </a>
      </p>
      <div class="hash">
        SHA-256: <code data-testid="document-sha256">{props.doc.sha256}</code>
      </div>
    </article>
  );
}

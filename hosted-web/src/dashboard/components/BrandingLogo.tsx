// The branding screen's logo (screens/Branding.tsx): the current one with "Remove logo", and a new one chosen,
// previewed (as a data: URL: the dashboard's CSP allows images from 'self' and data: only, no blob:) and
// uploaded. The server checks type, size and pixels (branding.service.ts LOGO_LIMITS); shown here.
import { createSignal, Show } from 'solid-js';
import type {
  RemoveLogoMutation,
  RemoveLogoMutationVariables,
  SetLogoMutation,
  SetLogoMutationVariables,
} from '../../graphql/generated';
import { environment, gql, gqlUpload, operation } from '../api';
import DOCUMENT from '../graphql/branding.graphql?raw';
import { dt } from '../i18n';

const SET_LOGO = operation<SetLogoMutation, SetLogoMutationVariables>(DOCUMENT, 'SetLogo');
const REMOVE_LOGO = operation<RemoveLogoMutation, RemoveLogoMutationVariables>(DOCUMENT, 'RemoveLogo');
const LOGO_MAX_BYTES = 256 * 1024;

export function BrandingLogo(props: {
  current: string | null | undefined;
  busy: boolean;
  /** runs a change, shows the notice it answers or its error, then reloads the screen */
  act: (f: () => Promise<string>) => Promise<boolean>;
  /** the chosen file as a data: URL for the preview, or null */
  onPreview: (src: string | null) => void;
}) {
  const [file, setFile] = createSignal<File | null>(null);
  let fileInput: HTMLInputElement | undefined;
  const pick = (e: Event) => {
    const f = (e.currentTarget as HTMLInputElement).files?.[0] ?? null;
    setFile(f);
    props.onPreview(null);
    if (!f || f.size > LOGO_MAX_BYTES) return;
    const reader = new FileReader();
    reader.onload = () => {
      if (file() === f && typeof reader.result === 'string') props.onPreview(reader.result);
    };
    reader.readAsDataURL(f);
  };
  const upload = (e: SubmitEvent) => {
    e.preventDefault();
    const f = file();
    if (!f) return;
    void props.act(async () => {
      await gqlUpload(SET_LOGO, { logo: f });
      setFile(null);
      props.onPreview(null);
      if (fileInput) fileInput.value = '';
      return dt('br.logoUploaded');
    });
  };
  const remove = () =>
    props.act(async () => {
      await gql(REMOVE_LOGO);
      return dt('br.logoRemoved');
    });
  return (
    <>
      <h2>{dt('br.logo')}</h2>
      <Show
        when={props.current}
        fallback={<p class="d-muted">{dt('br.noLogo', { in: dt(`env.in.${environment()}`) })}</p>}
      >
        {(src) => (
          <div class="b-current">
            <img class="b-logo" src={src()} alt={dt('br.currentLogo')} data-testid="current-logo" />
            <button type="button" class="d-danger" disabled={props.busy} onClick={remove}>
              {dt('br.removeLogo')}
            </button>
          </div>
        )}
      </Show>
      <form class="d-form b-form" onSubmit={upload}>
        <label for="branding-logo">{dt('br.newLogo')}</label>
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
              {dt('br.fileSize', { name: f().name, size: String(Math.ceil(f().size / 1024)) })}
              {f().size > LOGO_MAX_BYTES ? dt('br.tooBig') : dt('br.inPreview')}
            </p>
          )}
        </Show>
        <button type="submit" class="d-primary" disabled={props.busy || !file()}>
          {dt('br.uploadLogo')}
        </button>
      </form>
    </>
  );
}

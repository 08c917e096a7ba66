// The branding screen's preview of the signer page header (screens/Branding.tsx): the logo, the workflow's
// name, the business's public name and the Start button in the accent colour, as typed (not yet saved).
import { Show } from 'solid-js';
import { dt } from '../i18n';

export function BrandingPreview(props: {
  logo: string | null;
  logoAlt: string;
  workflow: string;
  name: string;
  accent: string;
}) {
  return (
    <>
      <h2 id="preview-h">{dt('br.previewTitle')}</h2>
      <figure class="b-preview" aria-labelledby="preview-h" data-testid="branding-preview">
        <Show when={props.logo}>
          {(src) => <img class="b-preview-logo" src={src()} alt={props.logoAlt || dt('br.yourLogo')} />}
        </Show>
        <p class="b-preview-workflow">{props.workflow}</p>
        <p class="b-preview-name">{props.name}</p>
        <span class="b-preview-button" style={{ background: props.accent }}>
          {dt('br.start')}
        </span>
      </figure>
    </>
  );
}
